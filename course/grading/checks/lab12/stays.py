"""Lab 12's checks share these: StayHub's tables in a scratch schema, bookings stored directly, a job as a
worker hands it over, and the stub probe."""

from __future__ import annotations

from course.core import queue
from course.programs import stayhub

from course.grading.trial import NotStarted, Trial
from course.grading.checks import shared


FAST_S = 1.2  # the material's target is ~0.4 s; inline the invoice alone would take 1.5 s
EMAIL_WITHIN_S = 20.0  # "the email arrives within seconds"; generous for a loaded machine
MISSING_BOOKING = 7_340_021  # no booking has this id
RUN_S = 240.0  # a fault-injected run's deadline: it bounds a hang; under load 40 a run with kills took 74 s


def stayhub_box(t: Trial):
    box = t.scratch()
    stayhub.install(box.conn)
    return box


def store_bookings(conn, guests: list[int], *, cancelled: set[int] = frozenset()) -> list[int]:
    """Bookings stored directly (no card, no wait): the jobs under test need them to exist."""
    ids = []
    for n, guest in enumerate(guests):
        ids.append(conn.execute(
            "INSERT INTO bookings (guest_id, room_id, check_in, nights, total_cents, payment_ref, status) "
            "VALUES (%s, 1, %s, 2, 29000, %s, %s) RETURNING id",
            [guest, stayhub.CHECK_IN, f"auth_check{n}", "cancelled" if n in cancelled else "confirmed"]).fetchone()[0])
    return ids


def booking_job(booking_id: int, attempts: int = 1) -> queue.Job:
    return shared.booking_job(booking_id, attempts, max_attempts=stayhub.MAX_ATTEMPTS)


def expect_started(t: Trial, handler, box) -> None:
    """A stub raises NotImplementedError at once: say "not started" rather than run real workers on it.

    The probe is a job for a booking that does not exist, in a transaction that is rolled back: a real
    handler stops (or raises something else) without sending or storing anything."""
    try:
        with box.conn.transaction(force_rollback=True):
            handler(booking_job(0), box.conn)
    except NotImplementedError:
        t.not_started = f"`{getattr(handler, '__name__', 'your handler')}` still raises NotImplementedError"
        raise NotStarted from None
    except Exception:  # noqa: BLE001 (anything else is for the real run to judge)
        pass

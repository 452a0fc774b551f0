"""12.checkout: the card charged once before the booking's transaction (the payment provider's own record
says so), the booking and its three jobs stored together or not at all, and, for real, fast with the email
still arriving."""

from __future__ import annotations

import contextlib

from course.infra.processes import wait_until
from course.programs import booking_api, channel_manager, stayhub
from course.programs.email_provider import EmailProvider

from course.grading.trial import Trial, short
from course.grading.faults import killpoint
from course.grading.checks import exercise_check, shared
from course.grading.checks.lab12.stays import stayhub_box, FAST_S, EMAIL_WITHIN_S


# -- 12.checkout ----------------------------------------------------------------------------------------


@exercise_check("12.checkout")
def checkout(t: Trial, checkout):
    box = stayhub_box(t)
    booking_id = t.call(checkout, box.conn, 1, 1, 2, during="checkout(conn, guest_id=1, room_id=1, nights=2)")
    t.require("returns the new booking's id", ok=isinstance(booking_id, int) and not isinstance(booking_id, bool),
              got=booking_id, example="checkout(conn, 1, 1, 2)")
    stored = stayhub.booking(box.conn, booking_id)
    t.require("the booking is stored", ok=stored is not None and stored.status == "confirmed", got=stored,
              example=f"SELECT * FROM bookings WHERE id = {booking_id}")
    jobs = box.conn.execute("SELECT type, payload FROM jobs ORDER BY type").fetchall()
    t.expect("three jobs: the email, the invoice, the channel-manager sync",
             got=sorted(job_type for job_type, _ in jobs), expected=sorted(stayhub.SIDE_JOBS),
             example="one checkout", note="everything the guest does not wait for becomes a job; nothing else")
    t.expect("each job carries the booking's id and nothing else", ok=jobs and all(
        payload == {"booking_id": booking_id} for _, payload in jobs), got=[p for _, p in jobs],
        expected=[{"booking_id": booking_id}] * 3, example="one checkout",
        note="the worker reads the booking fresh when it runs")
    _side_work_left_to_the_jobs(t, box, booking_id)

    # The card is charged once, before the booking's transaction opens (it is another company's server):
    # judged from the payment provider's own record, which says what the server saw of the caller's session
    # while the provider held the call — not by catching a call under one name.
    box.conn.execute("DELETE FROM jobs")
    _charged_once_outside_any_transaction(t, checkout, box)
    # The booking and its jobs: stored together or not at all (the same rule as 02 and 05).
    calls: list[int] = []
    charged_before = len(stayhub.authorisations(box.conn))

    def counted(c):
        calls.append(1)
        return checkout(c, 1, 1, 2)

    shared.expect_jobs_in_the_business_transaction(
        t, counted, box.conn, table="bookings", thing="booking",
        told="the guest is not told 'booking confirmed'", gets="an email, an invoice or a sync",
        call="checkout(conn, 1, 1, 2)")
    # Each of those checkouts, failed or not, charged the card once: a checkout that tries again after its
    # transaction failed charges the guest a second time (the provider's record says so, whatever the code).
    charged = len(stayhub.authorisations(box.conn)) - charged_before
    t.expect("a checkout whose transaction fails has charged the card once, not again",
             ok=charged == len(calls), got=f"{charged} authorisation(s) for {len(calls)} checkout(s)",
             expected=f"{len(calls)} authorisation(s), one per checkout",
             example="checkout(conn, 1, 1, 2) while the jobs (or the booking) cannot be stored",
             note="charge once, then let the transaction's failure reach the caller: a retry of the whole "
                  "checkout charges the card again (the guest's bank shows two holds)")

    # The real processes take ~6 s; they can only add failures to a checkout already wrong in-process.
    if all(result.passed for result in t.results):
        _fast_and_the_email_arrives(t, checkout, box)


SIDE_WORK = ("an invoice", "a confirmation email", "a channel-manager sync")
SIDE_WORK_DONE = ("SELECT (SELECT count(*) FROM invoices WHERE booking_id = %(b)s), "
                  "(SELECT count(*) FROM confirmations WHERE booking_id = %(b)s), "
                  "(SELECT count(*) FROM channel_syncs WHERE booking_id = %(b)s)")
LATE_JOBS = """SELECT j.type, round(extract(epoch FROM j.due_at - b.created_at))::int FROM jobs j, bookings b
                WHERE b.id = %(b)s AND j.due_at > b.created_at + interval '1 second' ORDER BY j.type"""


def _side_work_left_to_the_jobs(t: Trial, box, booking_id) -> None:
    """Observed right after the checkout returned, with no worker running: nothing of the side work done
    (a fast invoice in the request answers under the time limit all the same), and the jobs due at once
    (a job delayed a minute passes 'the email arrives' only on a machine slow enough to wait for it)."""
    if not isinstance(booking_id, int) or isinstance(booking_id, bool):
        return
    counts = box.conn.execute(SIDE_WORK_DONE, {"b": booking_id}).fetchone()
    done = [what for what, n in zip(SIDE_WORK, counts) if n]
    late = box.conn.execute(LATE_JOBS, {"b": booking_id}).fetchall()
    t.expect("the checkout does none of the side work itself: no invoice, email or sync before it returns, "
             "and its jobs are due at once", ok=not done and not late,
             got=(f"{', '.join(done)} already stored when checkout returned" if done else
                  "jobs due after the booking: " + ", ".join(f"{kind} {s} s later" for kind, s in late)),
             expected="no invoice, confirmation or sync yet; every job due when the booking commits",
             example="checkout(conn, 1, 1, 2), no worker running",
             note=("the invoice, the email and the sync are what the jobs are for: the request only enqueues "
                   "them") if done else
                  "enqueue the jobs with no delay: the guest expects the email within seconds")


def _charged_once_outside_any_transaction(t: Trial, checkout, box) -> None:
    call = "checkout(conn, guest_id=2, room_id=3, nights=1)"
    before = len(stayhub.authorisations(box.conn))
    booking_id = t.call(checkout, box.conn, 2, 3, 1, during=call)
    made = stayhub.authorisations(box.conn)[before:]
    inside = [a for a in made if a["caller_state"] != "idle"]
    stored = stayhub.booking(box.conn, booking_id) if isinstance(booking_id, int) else None
    paid = [a["payment_ref"] for a in made]
    t.expect("stayhub.charge (the card, ~300 ms at the payment provider) is called with no transaction open "
             "(not inside the transaction), once, and the booking carries its authorisation",
             ok=len(made) == 1 and not inside and stored is not None and stored.payment_ref in paid,
             got=("the provider authorised no card" if not made else
                  f"{len(made)} authorisation(s), {len(inside)} of them while your session was "
                  f"{inside[0]['caller_state']!r}" if inside else
                  f"{len(made)} authorisation(s); the booking's payment_ref is "
                  f"{getattr(stored, 'payment_ref', None)!r}"),
             expected="one authorisation, made while your session was 'idle' (no transaction open), and the "
                      "booking's payment_ref is its ref",
             example=f"{call}; the payment provider's record (stayhub.authorisations(conn)): {short(made)}",
             note=("call stayhub.charge before `with conn.transaction():`: a transaction left open while another "
                   "company's server thinks holds its locks and its connection for nothing") if inside else
                  ("charge the card with stayhub.charge(conn, guest_id, room_id, nights), once, and store the "
                   "Payment it returns with the booking") if made != inside else None)


def _fast_and_the_email_arrives(t: Trial, checkout, box) -> None:
    """The material's first test, for real: the learner's checkout served over HTTP, two workers."""
    started = []
    try:
        provider = EmailProvider.start(latency_s=stayhub.EMAIL_S, name="check-provider", timeout=killpoint.HANG_S)
        started.append(provider)
        partner = channel_manager.ChannelManager.start(latency_s=0.2, jitter_s=0.0, timeout_rate=0.0,
                                                       name="check-partner", timeout=killpoint.HANG_S)
        started.append(partner)
        api = booking_api.BookingApi.start(schema=box.schema, checkout=checkout, install=False,
                                           name="check-booking-api", timeout=killpoint.HANG_S)
        started.append(api)
        workers = [stayhub.spawn_worker(box.schema, provider_url=provider.url, channel_manager_url=partner.url,
                                        name=f"check-stayhub-worker{n}", invoice_s=0.1) for n in range(2)]
        started.extend(workers)
        stayhub.wait_until_ready(box.conn, workers, timeout=killpoint.HANG_S)  # the deadlines bound a hang only
        replies = [api.book(guest_id=2, room_id=3, nights=1, timeout=killpoint.HANG_S) for _ in range(2)]
        t.require("POST /bookings answers 201 with your checkout", ok=all(r.ok for r in replies),
                  got=[(r.status, r.error) for r in replies], expected="201, 201",
                  example="two checkouts through the booking API")
        fastest = min(r.seconds for r in replies)
        t.expect(f"checkout answers fast: under {FAST_S} s (the material: ~0.4 s)", ok=fastest < FAST_S,
                 got=f"{fastest:.2f} s (the faster of two)", expected=f"< {FAST_S} s",
                 example="POST /bookings, timed by the client",
                 note="only the card and the booking row belong in the request; the email (0.3 s), the invoice "
                      "(1.5 s) and the channel manager (3.6 s) are jobs")
        ids = {r.booking_id for r in replies}

        def given_up() -> list[str]:
            """Email jobs of these bookings that went to the dead-letter table: no use waiting for those."""
            return [f"booking {payload['booking_id']}: {error}" for payload, error in box.conn.execute(
                "SELECT payload, error FROM dead_jobs WHERE type = 'send_confirmation_email'") if
                payload.get("booking_id") in ids]

        def emails():
            counts = stayhub.emails_by_booking(provider.deliveries())
            return counts if all(counts[i] for i in ids) or given_up() else None

        try:
            counts = wait_until(emails, EMAIL_WITHIN_S, interval=0.2, what="both confirmation emails")
        except TimeoutError:
            counts = stayhub.emails_by_booking(provider.deliveries())
        got = {i: counts[i] for i in sorted(ids)}
        dead = given_up()
        t.expect("and the email still arrives: one per booking, within seconds", got=got,
                 expected={i: 1 for i in sorted(ids)}, example="two checkouts, two workers running StayHub's jobs",
                 note=("the email job gave up: " + "; ".join(dead)) if dead else None)
    finally:
        for thing in reversed(started):
            with contextlib.suppress(Exception):
                if thing.alive():
                    thing.kill()

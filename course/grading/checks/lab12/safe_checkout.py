"""12.safe_checkout: the checkout's charge made safe against a crash between the charge and the commit.

Judged against the reference (stayhub.safe_checkout and stayhub.reconcile) over seeded scenarios: StayHub's
tables as earlier checkouts left them (confirmed bookings, bookings left pending before or after their card
was authorised, bookings left pending before their charge and then cancelled by their guest: reconcile
charges and confirms none of those) and a new guest's checkout. For each scenario:

    no crash          the checkout runs to its end: the same rows, charges and jobs as the reference's
    a crash at k      for every statement boundary k of the answer's checkout (faults/boundaries.py: the
                      server ends the session there), then the answer's reconcile(conn): the end state must
                      be one the reference reaches — the checkout never happened, or it is finished
    reconcile at k    the answer's reconcile runs on another session at boundary k of a live checkout (it
                      is let go on when it has finished or waits for a lock): the end state must be the
                      reference's, everything finished once
    finished at k     with two bookings or more left pending, another checkout finishes the first of them at
                      boundary k of the answer's reconcile: reconcile must still finish every other one

Every charge, the checkout's and reconcile's, is made with no transaction open on the caller's session (the
provider records the session's state as the charge arrives).

Observed: the payment provider's own record (card_authorisations, written on its own session), the
bookings and the jobs — never the answer's code. Free: the order reconcile finishes bookings in, what it
returns, the jobs' columns other than type and payload.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import threading
from collections import Counter
from dataclasses import dataclass

import psycopg

from course.infra import processes
from course.infra.processes import wait_until
from course.programs import stayhub

from course.grading import differential as diff
from course.grading.trial import Trial, short
from course.grading.faults import killpoint
from course.grading.faults.boundaries import Crashed, Watched, crash_on
from course.grading.checks import exercise_check
from course.grading.checks.lab12.stays import stayhub_box

DEFAULT_SEED = 1212
SCENARIOS = 3  # the first is the plain story (one booking left pending after its charge); then seeded ones
FAST = {stayhub.PAYMENT_S_ENV: "0", stayhub.INSERT_S_ENV: "0"}  # the steps' waits, not their effects
MAX_BOUNDARIES = 60  # an answer still running after this many statements is taken to loop

# The checks, in the order the report shows them; each story's first broken rule is charged to one.
RETURNS = "returns the new booking's id, confirmed with its three jobs, when nothing crashes"
IDLE = "the checkout and reconcile charge the card with no transaction open"
PAID = ("a crash at any statement, then reconcile: every card charged has its confirmed booking, and every "
        "confirmed booking its charge")
ONCE = "never a card charged twice for one booking"
NONE_PENDING = "after reconcile no booking is left pending"
CANCELLED = "a booking cancelled before its charge stays cancelled: reconcile neither charges nor confirms it"
JOBS = "each confirmed booking gets its three jobs once, even when checkout and reconcile finish it at once"
RECONCILES = "reconcile returns normally"
SAME = "the same bookings as the reference (guest, room, nights, total)"
CHECKS = (RETURNS, IDLE, PAID, ONCE, NONE_PENDING, CANCELLED, JOBS, RECONCILES, SAME)


@dataclass(frozen=True)
class Story:
    """A new guest's checkout, and what earlier checkouts left: guests of confirmed bookings, of bookings
    left pending after their card was authorised under the booking's key, and of ones left pending before."""

    guest: int
    room: int
    nights: int
    confirmed: tuple[tuple[int, int], ...] = ()  # (guest, room) of each earlier confirmed booking
    pending_paid: tuple[tuple[int, int], ...] = ()
    pending_unpaid: tuple[tuple[int, int], ...] = ()
    cancelled: tuple[tuple[int, int], ...] = ()  # left pending before their charge, then cancelled by the guest

    def told(self) -> str:
        before = []
        for what, rows in (("confirmed", self.confirmed), ("left pending after its charge", self.pending_paid),
                           ("left pending before its charge", self.pending_unpaid),
                           ("left pending before its charge, then cancelled", self.cancelled)):
            if rows:
                before.append(f"{len(rows)} booking(s) {what}")
        return (f"safe_checkout(conn, guest_id={self.guest}, room_id={self.room}, nights={self.nights})"
                + (f", with {', '.join(before)}" if before else ", on empty tables"))


def plain(rng: random.Random) -> Story:
    return Story(guest=1, room=1, nights=2, pending_paid=((2, 3),), cancelled=((3, 2),))


def busy(rng: random.Random) -> Story:
    """Many bookings left over (more than ten pending: no limit an answer might hard-code finishes them)."""
    pair = lambda: (rng.randint(1, 3), rng.randint(1, 3))  # noqa: E731
    return Story(guest=rng.randint(1, 3), room=rng.randint(1, 3), nights=rng.choice((1, 3, 14, 60)),
                 confirmed=tuple(pair() for _ in range(rng.randint(0, 3))),
                 pending_paid=tuple(pair() for _ in range(rng.randint(1, 6))),
                 pending_unpaid=tuple(pair() for _ in range(rng.randint(5, 8))))


def quiet(rng: random.Random) -> Story:
    """Nothing left over: reconcile has only the crashed checkout to finish, or nothing at all."""
    return Story(guest=rng.randint(1, 3), room=rng.randint(1, 3), nights=rng.randint(1, 60),
                 confirmed=((rng.randint(1, 3), rng.randint(1, 3)),) if rng.random() < 0.5 else ())


FAMILIES = (quiet, busy)


def stories(seed: int) -> list[Story]:
    rng = random.Random(seed)
    drawn = [plain(rng)] + [FAMILIES[n % len(FAMILIES)](rng) for n in range(SCENARIOS - 1)]
    # Cancelled bookings that never got their charge (a guest who gave up after a crashed checkout): reconcile
    # finishes only what is still pending, so it charges none of them. Drawn apart, so the other draws stay.
    more = random.Random(f"{seed}:cancelled")
    return [story if story.cancelled else dataclasses.replace(story, cancelled=tuple(
        (more.randint(1, 3), more.randint(1, 3)) for _ in range(more.randint(0, 2)))) for story in drawn]


# -- the tables, as a story starts and as it ends ------------------------------------------------------------


def install(conn, story: Story) -> None:
    """StayHub's tables emptied (booking numbers from 981 again), then the story's earlier bookings."""
    conn.execute("TRUNCATE bookings, card_authorisations, jobs, confirmations, invoices, channel_syncs "
                  "RESTART IDENTITY CASCADE")
    with conn.transaction():
        for status, rows in (("confirmed", story.confirmed), ("paid", story.pending_paid),
                             ("pending", story.pending_unpaid), ("cancelled", story.cancelled)):
            for n, (guest, room) in enumerate(rows):
                booking_id = stayhub.insert_pending(conn, guest, room, 1)
                if status == "cancelled":
                    stayhub.cancel(conn, booking_id)
                if status in ("pending", "cancelled"):
                    continue
                ref = f"auth_earlier{booking_id}"
                conn.execute("INSERT INTO card_authorisations (payment_ref, idempotency_key, guest_id, room_id, "
                             "nights, total_cents, caller_state) SELECT %s, %s, %s, id, 1, nightly_cents, 'idle' "
                             "FROM rooms WHERE id = %s", [ref, stayhub.checkout_key(booking_id), guest, room])
                if status == "confirmed":
                    stayhub.finish_pending(conn, booking_id, stayhub.Payment(ref, 0))


def read(conn) -> dict:
    """The end state in the contract's normal form: per booking, what the guest, the provider and the
    queue have of it; and the authorisations that belong to no booking at all. An authorisation belongs to
    the booking whose key it carries or whose payment_ref it is; one with neither (a charge made without
    the key, or under another) to the newest booking of the same guest, room and nights, if there is one."""
    bookings = conn.execute("SELECT id, guest_id, room_id, nights, total_cents, status, payment_ref FROM bookings "
                            "ORDER BY id").fetchall()
    auths = conn.execute("SELECT payment_ref, idempotency_key, guest_id, room_id, nights FROM card_authorisations "
                         "ORDER BY payment_ref").fetchall()
    jobs = Counter((job_type, (payload or {}).get("booking_id") if isinstance(payload, dict) else None)
                   for job_type, payload in conn.execute("SELECT type, payload FROM jobs"))
    owner = {}
    for ref, key, guest, room, nights in auths:
        by_key = [b[0] for b in bookings if key == stayhub.checkout_key(b[0]) or ref == b[6]]
        alike = [b[0] for b in bookings if (b[1], b[2], b[3]) == (guest, room, nights)]
        owner[ref] = by_key[0] if by_key else max(alike) if alike else None
    refs = {ref for ref, *_ in auths}
    state = {}
    for booking_id, guest, room, nights, total, status, payment_ref in bookings:
        state[booking_id] = {"guest, room, nights, total": (guest, room, nights, total), "status": status,
                             "charges": sum(1 for ref in refs if owner[ref] == booking_id),
                             "paid by its charge": payment_ref in refs,
                             "jobs": sorted(t for (t, b), n in jobs.items() for _ in range(n) if b == booking_id)}
    return {"bookings": state, "charges of no booking": sum(1 for ref in refs if owner[ref] is None)}


def problems(state: dict) -> list[tuple[str, str]]:
    """The rules a finished story's state breaks, as (check, what is wrong), most basic first."""
    found = []
    orphans = state["charges of no booking"]
    unpaid = [b for b, s in state["bookings"].items() if s["charges"] and s["status"] == "cancelled"]
    free = [b for b, s in state["bookings"].items() if s["status"] == "confirmed" and not s["paid by its charge"]]
    if orphans or unpaid or free:
        found.append((PAID, "; ".join(filter(None, (
            f"{orphans} card authorisation(s) for no booking" if orphans else "",
            f"booking(s) {unpaid} charged but cancelled" if unpaid else "",
            f"booking(s) {free} confirmed without an authorisation of theirs" if free else "")))))
    twice = {b: s["charges"] for b, s in state["bookings"].items() if s["charges"] > 1}
    if twice:
        found.append((ONCE, f"authorisations per booking: {twice}"))
    pending = [b for b, s in state["bookings"].items() if s["status"] == "pending"]
    if pending:
        found.append((NONE_PENDING, f"booking(s) {pending} still pending"))
    jobs = {b: s["jobs"] for b, s in state["bookings"].items()
            if (s["status"] == "confirmed") != (s["jobs"] == sorted(stayhub.SIDE_JOBS))}
    if jobs:
        found.append((JOBS, f"jobs per booking: {jobs}"))
    return found


def described(booking: dict | None) -> str:
    """A booking of the normal form, in words: 'confirmed, 1 charge, its 3 jobs'."""
    if booking is None:
        return "not stored"
    guest, room, nights, total = booking["guest, room, nights, total"]
    return (f"{booking['status']} (guest {guest}, room {room}, {nights} night(s), {total} cents), "
            f"{booking['charges']} charge(s){'' if booking['paid by its charge'] else ', no payment_ref of its own'}, "
            f"jobs {booking['jobs'] or 'none'}")


def difference(ours: dict, theirs: dict) -> str:
    """The first booking (or count) that differs, in words."""
    for booking_id in sorted(set(ours["bookings"]) | set(theirs["bookings"])):
        mine, ref = ours["bookings"].get(booking_id), theirs["bookings"].get(booking_id)
        if mine != ref:
            return f"booking {booking_id}: yours {described(mine)}; the reference's {described(ref)}"
    return f"authorisations of no booking: yours {ours['charges of no booking']}, the reference's " \
           f"{theirs['charges of no booking']}"


# -- the check ------------------------------------------------------------------------------------------------


@exercise_check("12.safe_checkout")
def safe_checkout(t: Trial, safe_checkout, reconcile, seed=None):
    box = stayhub_box(t)
    _unlogged(box.conn)
    t.seed = DEFAULT_SEED if seed is None else seed
    findings: dict[str, tuple[str, str, str]] = {}  # check -> (got, example, note)

    def found(check: str, got: str, example: str, note: str) -> None:
        findings.setdefault(check, (got, example, note))

    tried = {"stories": 0, "crashes": 0, "meanwhiles": 0, "finished": 0}
    with processes.environment(FAST):
        for story in stories(t.seed):
            tried["stories"] += 1
            _one_story(t, box, story, safe_checkout, reconcile, found, tried)
            if findings:  # the first story that breaks a rule is told whole; the next ones would take time
                break
    t.tell(f"tried {tried['stories']} scenario(s): {tried['crashes']} crash point(s), {tried['meanwhiles']} "
           f"reconcile(s) between the checkout's statements, {tried['finished']} checkout(s) finishing between "
           f"reconcile's (seed {t.seed})")
    diff.report_in_order(t, CHECKS, findings)


NOTES = {
    PAID: "commit the booking as pending (stayhub.insert_pending, outside any transaction) before you charge, "
          "and let reconcile finish every pending booking: a crash after the charge then leaves a row that "
          "says what is unfinished",
    ONCE: "charge with idempotency_key=stayhub.checkout_key(booking_id), in the checkout and in reconcile: the "
          "provider answers a key it has seen with the first authorisation instead of making a second",
    NONE_PENDING: "reconcile must finish every booking pending when it runs (charge under its key, then "
                  "confirm it with its jobs), whatever its age",
    JOBS: "confirm and enqueue in one transaction, and only if the booking is still pending (UPDATE ... WHERE "
          "status = 'pending' RETURNING id): whoever finishes it second changes nothing",
    RETURNS: "insert the pending booking, charge, confirm it with its three jobs, and return its id",
    CANCELLED: "reconcile finishes only bookings still pending (status = 'pending'), and the confirm changes a "
               "booking only if it is still pending (WHERE ... AND status = 'pending'): a cancelled booking has no "
               "payment_ref and is not confirmed either, yet its guest gave it up",
    SAME: "price the booking as stayhub.insert_pending does: the room's nightly price times the nights",
}


def _one_story(t: Trial, box, story: Story, safe_checkout, reconcile, found, tried) -> None:
    new_id = 981 + len(story.confirmed) + len(story.pending_paid) + len(story.pending_unpaid) + len(story.cancelled)
    # The reference, three ways: nothing happened (a crash before the pending row), finished by the
    # checkout alone, finished and then reconciled.
    install(box.conn, story)
    stayhub.reconcile(box.conn)
    nothing = read(box.conn)
    install(box.conn, story)
    stayhub.safe_checkout(box.conn, story.guest, story.room, story.nights)
    alone = read(box.conn)
    stayhub.reconcile(box.conn)
    everything = read(box.conn)

    # 1. No crash: the checkout alone, to its end.
    install(box.conn, story)
    with _watched(box) as conn:
        done = t.attempt(safe_checkout, conn, story.guest, story.room, story.nights)
        statements = conn.seen
    ours = read(box.conn)
    example = story.told()
    if done.error is not None:
        found(RETURNS, f"raised {done.error}", example, NOTES[RETURNS])
        return
    mine, ref = ours["bookings"].get(new_id), alone["bookings"].get(new_id)
    if done.value != new_id or mine != ref:
        found(RETURNS, f"returned {short(done.value)}; booking {new_id}: " + (
                  "not stored" if mine is None else f"{mine['status']}, {len(mine['jobs'])} job(s)"),
              example + f"; expected {new_id} and booking {new_id}: {described(ref)}", NOTES[RETURNS])
    elif ours != alone:  # the new booking is right; something else changed (reconcile's work is not the checkout's)
        found(SAME, difference(ours, alone), example + ", nothing crashing", NOTES[SAME])
    _charged_idle(box, example, found, by="your checkout")

    # 2. A crash at every statement boundary, then reconcile.
    for point in range(1, min(statements, MAX_BOUNDARIES) + 1):
        tried["crashes"] += 1
        install(box.conn, story)
        with _watched(box) as conn:
            conn.at(point, crash_on(conn, box.conn))
            with contextlib.suppress(Crashed):
                t.attempt(safe_checkout, conn, story.guest, story.room, story.nights)
            reached = conn.crashed
        if not reached:
            continue  # the answer took another path this time, and ended before this point
        example = f"{story.told()}; the process dies before its statement {point}, then reconcile(conn) runs"
        with box.connect() as other:
            after = t.attempt(reconcile, other)
        if after.error is not None:
            found(RECONCILES, f"raised {after.error}", example, "reconcile runs every few minutes on its own: "
                  "it must finish what it can and return, not stop at the first pending booking")
            continue
        _charged_idle(box, example, found, by="reconcile")
        ours = read(box.conn)
        if ours not in (nothing, everything):
            _judge(t, ours, everything, example, found)

    # 3. The answer's reconcile on another session between every two statements of a live checkout.
    for point in range(1, min(statements, MAX_BOUNDARIES) + 1):
        tried["meanwhiles"] += 1
        install(box.conn, story)
        runs: list = []
        with _watched(box) as conn:
            conn.at(point, lambda: runs.append(_reconcile_meanwhile(t, box, reconcile)))
            done = t.attempt(safe_checkout, conn, story.guest, story.room, story.nights)
        for run in runs:
            run["thread"].join(killpoint.HANG_S)  # bounds a hang only
        example = (f"{story.told()}; reconcile(conn) runs on another session just before the checkout's "
                   f"statement {point}" + (" (it waited for the checkout's lock)" if runs and runs[0]["waited"] else ""))
        errors = [r["done"].error for r in runs if r.get("done") is not None and r["done"].error is not None]
        if errors:
            found(RECONCILES, f"raised {errors[0]}", example, "reconcile must finish what it can and return")
            continue
        if done.error is not None:
            found(JOBS, f"your checkout raised {done.error}", example,
                  "a booking reconcile finished already is no error: the checkout's confirm changes nothing then")
            continue
        if done.value != new_id:  # a None when reconcile finished it first (round f4, f4b12)
            found(RETURNS, f"returned {short(done.value)}", example + f"; expected {new_id}, the booking's id",
                  "the booking is the guest's whoever finished it: return its id, however the race went")
            continue
        _charged_idle(box, example, found, by="your checkout or reconcile")
        ours = read(box.conn)
        if ours != everything:
            _judge(t, ours, everything, example, found)

    # 4. Another checkout finishes a pending booking between two statements of the answer's reconcile.
    if len(story.pending_paid) + len(story.pending_unpaid) >= 2:
        _finished_meanwhile(t, box, story, reconcile, nothing, found, tried)


FINISHED_BOUNDARIES = 4  # the listing, then the first booking's charge and confirm: where "someone else finished it" first shows


def _finished_meanwhile(t: Trial, box, story: Story, reconcile, nothing: dict, found, tried) -> None:
    """At each of the first boundaries of the answer's reconcile, the checkout of the lowest pending booking
    (still between its steps when reconcile listed it) charges under its key and finishes it. Reconcile must
    still finish every other pending booking: the end state is the reference's reconcile's."""
    install(box.conn, story)
    with _watched(box) as conn:
        t.attempt(reconcile, conn)
        statements = conn.seen
    for point in range(1, min(statements, FINISHED_BOUNDARIES) + 1):
        tried["finished"] += 1
        install(box.conn, story)

        def finish_one() -> None:
            row = box.conn.execute("SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending' "
                                   "ORDER BY id LIMIT 1").fetchone()
            if row is not None:
                booking_id, guest, room, nights = row
                with box.connect() as checkout:
                    payment = stayhub.charge(checkout, guest, room, nights, idempotency_key=stayhub.checkout_key(booking_id))
                    with contextlib.suppress(Exception):  # reconcile may hold the row: then it finishes it itself
                        checkout.execute("SET lock_timeout = '2s'")
                        stayhub.finish_pending(checkout, booking_id, payment)

        with _watched(box) as conn:
            conn.at(point, finish_one)
            done = t.attempt(reconcile, conn)
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
        before = story.told().split(", with ", 1)[-1]
        example = (f"reconcile(conn) alone, with {before}; just before its statement {point}, the checkout of the "
                   "first pending booking (still running) finishes it on its own session")
        if done.error is not None:
            found(RECONCILES, f"raised {done.error}", example, "reconcile must finish what it can and return")
            return
        ours = read(box.conn)
        if ours != nothing:
            _judge(t, ours, nothing, example, found)
            return


def _charged_idle(box, example: str, found, *, by: str) -> None:
    """The rule for every charge: the provider saw the caller's session idle, not in a transaction."""
    inside = [a for a in stayhub.authorisations(box.conn) if a["caller_state"] not in ("idle", None)]
    if inside:
        found(IDLE, f"the provider saw the session of {by} {inside[0]['caller_state']!r} while it charged", example,
              "charge with no transaction open, in the checkout (after the pending row is committed, before the "
              "confirming transaction) and in reconcile (no lock held across the charge: the key and the confirm "
              "only-if-pending make a second reconciler harmless): a transaction left open across the provider's "
              "300 ms holds its locks for nothing")


def _judge(t: Trial, ours: dict, theirs: dict, example: str, found) -> None:
    revived = {b: described(ours["bookings"].get(b)) for b, ref in theirs["bookings"].items()
               if ref["status"] == "cancelled" and ours["bookings"].get(b) != ref}
    if revived:
        found(CANCELLED, "; ".join(f"booking {b} (cancelled before its charge): yours {d}"
                                   for b, d in revived.items()), example, NOTES[CANCELLED])
        return
    broken = problems(ours)
    if broken:
        check, got = broken[0]
        found(check, got, example, NOTES[check])
    else:
        found(SAME, difference(ours, theirs), example, NOTES[SAME])


REFERENCED = ("bookings", "rooms", "guests", "hotels")  # in this order: each referenced only by those before


def _unlogged(conn) -> None:
    """The check's own tables, unlogged: a commit then waits for no disk flush (the stories commit
    hundreds of times), and nothing the answer can observe changes. A table before those it references."""
    tables = [name for (name,) in conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname")]
    with conn.transaction():
        for name in [n for n in tables if n not in REFERENCED] + list(REFERENCED):
            conn.execute(f'ALTER TABLE "{name}" SET UNLOGGED')


@contextlib.contextmanager
def _watched(box):
    conn = Watched.connect(box.conninfo, autocommit=True)
    try:
        yield conn
    finally:
        with contextlib.suppress(Exception):
            conn.close()


def _reconcile_meanwhile(t: Trial, box, reconcile) -> dict:
    """The answer's reconcile on a session of its own, in a thread; return once it has finished or waits
    for a lock (pg_stat_activity says which: on cue, not by a timer)."""
    run: dict = {"waited": False}
    started = threading.Event()

    def work():
        with box.connect() as other:
            run["pid"] = other.info.backend_pid
            started.set()
            run["done"] = t.attempt(reconcile, other)

    run["thread"] = threading.Thread(target=work, daemon=True, name="check-12-reconcile")
    run["thread"].start()
    started.wait(killpoint.HANG_S)

    def done_or_waiting() -> bool:
        run["waited"] = run["waited"] or bool(box.conn.execute(
            "SELECT cardinality(pg_blocking_pids(%s)) > 0", [run.get("pid")]).fetchone()[0])
        return run["waited"] or not run["thread"].is_alive()

    with contextlib.suppress(TimeoutError):
        wait_until(done_or_waiting, killpoint.HANG_S, interval=0.01, what="reconcile to finish or wait for a lock")
    return run

"""06.confirm_booking: the learner's handler and the reference run on the same StayHub tables, drawn from
everything the statement allows (one to three hotels, with rooms to spare or none, a hotel with id 1 that
is not the booking's; the booking pending, confirmed or cancelled; other bookings beside it; the job
delivered once, delivered again after a crash before its ack, or enqueued twice; the room update or the
booking update failing once, and the job retried as a worker retries it); then with another worker acting
between its statements (the same job, a room at the same hotel, a cancellation) or holding the booking;
killed between any two of its statements and run again; and last in real worker processes SIGKILLed after
the work, before the ack.

Free, and not compared: what the handler returns, a processed key of its own (the `processed` table).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import psycopg
from psycopg import sql

from course.programs import sql as lab_sql

from course.grading import differential as diff
from course.grading import faults, interleave
from course.grading.checks import exercise_check
from course.grading.checks.lab06 import stayhub
from course.grading.snapshot import Reader
from course.grading.trial import Attempt, Trial, short

DEFAULT_SEED = 6
SCENARIOS = 42  # six of each family
FIRST = 5307
NAMES = {1: "Pension Lindenhof", 7: "Hotel Aurora", 42: "Casa do Rio", 3: "Villa Sol", 1000: "Hostel Nord"}

# -- a stay, in the learner's words ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Stay:
    """A scenario: the hotels (id, rooms left), the bookings (id, hotel, status; the first is the job's), how
    the job is delivered, and what fails."""
    hotels: tuple[tuple[int, int], ...] = ((42, 40),)
    bookings: tuple[tuple[int, int, str], ...] = ((FIRST, 42, "pending"),)
    runs: str = "once"  # "once", "again" (delivered again after a crash before the ack), "two jobs"
    fault: str | None = None  # "hotels" or "bookings": that table's first UPDATE fails; the job is retried
    attempt: int = 1
    extra: bool = False  # the payload carries another key beside booking_id

    @property
    def target(self) -> tuple[int, int, str]:
        return self.bookings[0]

    def told(self) -> str:
        hotels = ", ".join(f"{h} ({r} room{'s' if r != 1 else ''} left)" for h, r in self.hotels)
        bookings = ", ".join(f"{b} ({s}, hotel {h})" for b, h, s in self.bookings)
        payload = f"{{'booking_id': {self.target[0]}" + (", 'source': 'web'}" if self.extra else "}")
        told = (f"hotel{'s' if len(self.hotels) > 1 else ''} {hotels}; booking{'s' if len(self.bookings) > 1 else ''} "
                f"{bookings}; confirm_booking(job {payload}, attempt {self.attempt}, conn)")
        told += {"once": "", "again": f", then the same job delivered again (attempt {self.attempt + 1}), as after a "
                                      "crash before its ack",
                 "two jobs": ", then a second job for the same booking"}[self.runs]
        if self.fault:
            told += f"; the first UPDATE of {self.fault} fails (an injected failure), and the job is retried if it raised"
        return told

    def shrinks(self) -> Iterator["Stay"]:
        if len(self.bookings) > 1:
            yield replace(self, bookings=self.bookings[:1])
            for n in range(1, len(self.bookings)):
                yield replace(self, bookings=self.bookings[:n] + self.bookings[n + 1:])
        used = {h for _, h, _ in self.bookings}
        spare = [h for h in self.hotels if h[0] not in used]
        for hotel in spare:
            yield replace(self, hotels=tuple(h for h in self.hotels if h != hotel))
        if self.runs != "once":
            yield replace(self, runs="once")
        if self.fault:
            yield replace(self, fault=None)
        if self.attempt != 1:
            yield replace(self, attempt=1)
        if self.extra:
            yield replace(self, extra=False)
        plain = tuple((h, 40) for h, _ in self.hotels)
        if plain != self.hotels:
            yield replace(self, hotels=plain)


def install(stay: Stay) -> sql.Composable:
    """Nothing but the scenario's rows (the processed keys and jobs of a run before are cleared too)."""
    parts = [sql.SQL("DELETE FROM processed; DELETE FROM jobs")]
    parts.append(sql.SQL("INSERT INTO hotels (id, name, rooms_left) ") + diff.values(
        [[sql.Literal(h), sql.Literal(NAMES.get(h, f"Hotel {h}")), sql.Literal(r)] for h, r in stay.hotels]))
    rows = []
    for n, (b, h, s) in enumerate(stay.bookings):
        guest = stayhub.GUESTS[n % len(stayhub.GUESTS)]
        rows.append([sql.Literal(b), sql.Literal(h), sql.Literal(guest), sql.Literal(stayhub.email_of(guest, b)),
                     sql.Literal(1 + n % 4), sql.Literal(s)])
    parts.append(sql.SQL("INSERT INTO bookings (id, hotel_id, guest, email, nights, status) ") + diff.values(rows))
    return sql.SQL("; ").join(parts)


FAIL_ONCE = """
CREATE SEQUENCE IF NOT EXISTS check_fail_once;
SELECT setval('check_fail_once', 1, false);
CREATE OR REPLACE FUNCTION check_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF nextval('check_fail_once') = 1 THEN
        RAISE EXCEPTION 'injected failure: the update of % did not happen', TG_TABLE_NAME;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER check_fail_once BEFORE UPDATE ON {table} FOR EACH ROW EXECUTE FUNCTION check_fail_once();
"""
NO_FAULTS = "DROP TRIGGER IF EXISTS check_fail_once ON hotels; DROP TRIGGER IF EXISTS check_fail_once ON bookings"


# -- drawing stays -----------------------------------------------------------------------------------------------------


def _hotels(rng: random.Random) -> tuple[tuple[int, int], ...]:
    ids = rng.sample([1, 7, 42, 3, 1000], rng.choice([1, 2, 2, 3]))
    return tuple((h, rng.choice([40, 40, 3, 1, 0])) for h in ids)


def _stay(rng: random.Random, *, status: str = "pending", others: int | None = None, **fields) -> Stay:
    hotels = _hotels(rng)
    if len(hotels) > 1 and rng.random() < 0.5 and any(h == 1 for h, _ in hotels):  # hotel 1, not the booking's
        own = rng.choice([h for h, _ in hotels if h != 1])
    else:
        own = rng.choice([h for h, _ in hotels])
    first = rng.choice([FIRST, 981, 12, 70001])
    bookings = [(first, own, status)]
    for n in range(rng.choice([0, 1, 2]) if others is None else others):
        bookings.append((first + 1 + n, rng.choice([h for h, _ in hotels]), rng.choice(["pending", "confirmed",
                                                                                        "cancelled"])))
    return Stay(hotels, tuple(bookings), attempt=rng.choice([1, 1, 2, 5]), extra=rng.random() < 0.2, **fields)


def families() -> list[Callable[[random.Random], Stay]]:
    def pending(rng):
        return _stay(rng)

    def again(rng):  # delivered again, or enqueued twice
        return _stay(rng, runs=rng.choice(["again", "two jobs"]))

    def not_pending(rng):  # confirmed by an earlier run, or cancelled before the job ran
        return _stay(rng, status=rng.choice(["confirmed", "cancelled"]), runs=rng.choice(["once", "again"]))

    def room_fails(rng):
        return _stay(rng, fault="hotels")

    def booking_fails(rng):
        return _stay(rng, fault="bookings")

    def crowded(rng):  # other bookings at the same hotel, in every state
        return _stay(rng, others=rng.choice([2, 3]), runs=rng.choice(["once", "again"]))

    def last_room(rng):
        stay = _stay(rng)
        return replace(stay, hotels=tuple((h, 1 if h == stay.target[1] else r) for h, r in stay.hotels))

    return [pending, again, not_pending, room_fails, booking_fails, crowded, last_room]


# -- one run -------------------------------------------------------------------------------------------------------


def reference(handed) -> Attempt:
    """The solution's confirm_booking, as a function of (job, conn)."""
    def run(conn):
        try:
            with conn.transaction():
                changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                                       "RETURNING hotel_id", [handed.payload["booking_id"]]).fetchone()
                if changed:
                    conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
            return Attempt()
        except Exception as error:  # noqa: BLE001 (the injected failure)
            return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)
    return run


@dataclass(frozen=True)
class Seen:
    raised: tuple[str | None, ...]  # what each run raised, in order (None: it returned)
    state: dict
    fired: bool = False  # the injected failure happened: the runs updated the table it was set on


def deliveries(stay: Stay, handler: Callable[[Any], Callable[[psycopg.Connection], Attempt]],
               conn: psycopg.Connection) -> tuple[str | None, ...]:
    """The job's runs, as a worker makes them: again after a crash before the ack, a second job, or a retry
    when a run raised and a failure was injected."""
    first = stayhub.job(stay.target[0], attempts=stay.attempt, extra={"source": "web"} if stay.extra else None)
    raised = [handler(first)(conn).error]
    if stay.runs == "again" or (stay.fault and raised[0]):
        raised.append(handler(stayhub.redelivered(first))(conn).error)
    elif stay.runs == "two jobs":
        raised.append(handler(stayhub.job(stay.target[0], job_id=2))(conn).error)
    return tuple(raised)


class Runner:
    def __init__(self, t: Trial, box, answer: Callable):
        self.t, self.box, self.answer = t, box, answer
        self.watch = box.connect()
        self.reader = Reader.of(box.conn, only=("bookings", "hotels", "loyalty_points"))

    def learner(self, handed) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: self.t.attempt(self.answer, handed, conn)

    def reset(self, stay: Stay) -> None:
        self.watch.execute(NO_FAULTS)
        diff.clear(self.watch, self.reader)
        self.watch.execute(install(stay))
        if stay.fault:
            self.watch.execute(FAIL_ONCE.format(table=stay.fault))

    def run(self, stay: Stay, handler, conn: psycopg.Connection | None = None) -> Seen:
        self.reset(stay)
        conn = conn or self.box.conn
        try:
            raised = deliveries(stay, handler, conn)
            fired = bool(stay.fault) and self.watch.execute("SELECT is_called FROM check_fail_once").fetchone()[0]
        finally:
            if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
            if not conn.closed and not conn.autocommit:
                conn.autocommit = True
            self.watch.execute(NO_FAULTS)
        return Seen(raised, self.reader.read(self.watch), fired)

    def close(self) -> None:
        self.watch.execute(NO_FAULTS)
        diff.clear(self.watch, self.reader)
        self.watch.execute("DELETE FROM processed; DELETE FROM jobs")
        self.watch.close()


# -- the checks, by rule (labs.toml names each) ---------------------------------------------------------------------

CONFIRMS = "confirms a pending booking"
OWN_HOTEL = "takes one room, from the booking's own hotel"
AGAIN = "the job delivered again, or enqueued twice: no second room"
NOTHING = "a booking that is not pending: nothing to do (no change, no room, no error)"
ONE_TX = "the room update fails once, the job runs again: confirmed, and exactly one room taken"
UNTOUCHED = "changes nothing but this booking and its hotel's rooms"
TWO_WORKERS = "two workers run the same booking's job at the same moment: one room taken"
CANCELLED = "a booking cancelled while it runs is not confirmed: the UPDATE's WHERE decides"
LOST_UPDATE = "a room taken at the same hotel meanwhile is not lost: rooms_left = rooms_left - 1"
KILLED = "a worker killed between any two of its statements, then the job runs again: confirmed, one room"
WORKERS = "in real workers SIGKILLed after the work, before the ack: every booking confirmed, one room each"

CHECKS = (CONFIRMS, OWN_HOTEL, AGAIN, NOTHING, ONE_TX, UNTOUCHED, TWO_WORKERS, CANCELLED, LOST_UPDATE, KILLED, WORKERS)

WRONG_HOTEL = ("take the room from the booking's own hotel — the hotel_id of the booking your UPDATE changed "
               "(RETURNING hotel_id) — not from a hotel id written in the code")


def _rooms(state: dict) -> dict[int, int]:
    return {key[0]: row["rooms_left"] for key, row in state["hotels"].items()}


def _status(state: dict, booking: int) -> str | None:
    row = state["bookings"].get((booking,))
    return row["status"] if row else None


def _taken(stay: Stay, state: dict) -> dict[int, int]:
    now = _rooms(state)
    return {h: r - now.get(h, r) for h, r in stay.hotels}


def judge(stay: Stay, ours: Seen, theirs: Seen) -> diff.Finding | None:
    booking, hotel, status = stay.target
    mine, wanted = _status(ours.state, booking), _status(theirs.state, booking)
    raised = next((r for r in ours.raised if r), None)
    if stay.fault and ours.fired:  # else its runs never updated that table: judged as without the failure
        if mine != wanted or _taken(stay, ours.state) != _taken(stay, theirs.state):
            got = f"booking {booking} {mine}, rooms taken {_taken(stay, ours.state)}"
            note = ("the first run returned normally although its update failed: the job was acked and nothing "
                    "retries it. Let the error through" if not ours.raised[0] else
                    "the first run's booking change committed without its room: confirm and take the room in one "
                    "transaction (with conn.transaction(): ...), so a failure leaves the booking pending for the retry")
            return diff.Finding(ONE_TX, got=got, expected=f"booking {booking} {wanted}, rooms taken "
                                f"{_taken(stay, theirs.state)}", note=note)
    elif raised:
        name = NOTHING if status != "pending" or len(ours.raised) > 1 and ours.raised[1] else CONFIRMS
        return diff.Finding(name, got=f"yours raised {raised}", expected="no error", note=(
            "no row back from the UPDATE means there is nothing to do: an earlier run confirmed it, or it was "
            "cancelled. Return; a raise makes the worker retry a job that is done" if name == NOTHING else None))
    if mine != wanted:
        if status != "pending":
            return diff.Finding(NOTHING, got=f"booking {booking} {mine}", expected=f"{wanted} (it was {status})",
                                note="only a booking still 'pending' is confirmed: WHERE ... AND status = 'pending'")
        return diff.Finding(CONFIRMS, got=f"booking {booking} {mine}", expected=wanted,
                            note="UPDATE bookings SET status = 'confirmed' WHERE id = ... AND status = 'pending'")
    taken, should = _taken(stay, ours.state), _taken(stay, theirs.state)
    if taken != should:
        elsewhere = [h for h in taken if h != hotel and taken[h] != should[h]]
        if elsewhere:
            return diff.Finding(OWN_HOTEL, got=f"rooms taken {taken}", expected=f"{should}", note=WRONG_HOTEL)
        if taken[hotel] > should[hotel] and (stay.runs != "once" or status != "pending"):
            return diff.Finding(NOTHING if status != "pending" else AGAIN, got=f"rooms taken {taken}",
                                expected=f"{should}", note="only a run whose UPDATE changed the booking from "
                                                           "'pending' may take the room")
        return diff.Finding(OWN_HOTEL, got=f"rooms taken {taken}", expected=f"{should}", note=(
            f"no room was taken from hotel {hotel}, the booking's own: {WRONG_HOTEL}" if taken[hotel] < should[hotel]
            else "one room for the booking: rooms_left - 1 on its hotel, once"))
    for key, row in theirs.state["bookings"].items():
        if ours.state["bookings"].get(key) != row and key[0] != booking:
            return diff.Finding(UNTOUCHED, got=f"booking {key[0]}: {short(ours.state['bookings'].get(key))}",
                                expected=short(row), note="confirm the job's booking, and only it")
    if ours.state["loyalty_points"] != theirs.state["loyalty_points"]:
        return diff.Finding(UNTOUCHED, got=f"loyalty_points: {len(ours.state['loyalty_points'])} row(s)",
                            expected=f"{len(theirs.state['loyalty_points'])}", note="confirming awards no points")
    return None


# -- other workers between its statements; killed and run again ----------------------------------------------------

RACE = Stay(((42, 40), (7, 40)), ((FIRST, 42, "pending"), (FIRST + 1, 42, "pending")))
RACE_SLACK_S = 1.0


def _confirm(booking: int, handler) -> Callable[[psycopg.Connection], str]:
    def act(conn):
        done = handler(stayhub.job(booking, job_id=9))(conn)
        return "raised" if done.error else "returned"
    return act


def _cancel(conn: psycopg.Connection) -> str:
    row = conn.execute("UPDATE bookings SET status = 'cancelled' WHERE id = %s AND status = 'pending' RETURNING id",
                       [FIRST]).fetchone()
    return "cancelled it" if row else "found it no longer pending"


def race(t: Trial, runner: Runner) -> tuple[diff.Finding, str] | None:
    first = stayhub.job(FIRST)
    learner, ref = runner.learner(first), reference(first)
    arena = interleave.Arena(runner.box.conn, runner.box.connect, runner.reader, install, lambda value: None)
    acts = [
        (interleave.Act("worker B ran the same job (the reference confirm_booking) and committed",
                        _confirm(FIRST, reference)), TWO_WORKERS),
        (interleave.Act("worker B ran the same job with your confirm_booking and committed",
                        _confirm(FIRST, runner.learner)), TWO_WORKERS),
        (interleave.Act(f"support cancelled booking {FIRST} (committed)", _cancel), CANCELLED),
        (interleave.Act(f"another worker confirmed booking {FIRST + 1}, at the same hotel 42, and took its room",
                        _confirm(FIRST + 1, reference)), LOST_UPDATE),
    ]
    hold = interleave.InTransaction(f"worker B is confirming booking {FIRST} (the reference), its transaction "
                                    "open", lambda conn: _confirm(FIRST, reference)(conn))
    try:
        said = arena.count(learner, RACE)
        for act, name in acts:
            allowed = None
            for point in range(2, len(said) + 1):
                got = arena.between(learner, RACE, act, point)
                if got is None:
                    continue
                allowed = allowed or [arena.around(ref, RACE, act, first=f) for f in (True, False)]
                finding = diff.against(got, allowed, lambda theirs: _differs(got, theirs))
                if finding is not None:
                    lost = _rooms(got.state).get(42, 0) > max(_rooms(a.state).get(42, 0) for a in allowed)
                    return _told(finding, name, lost=lost), (
                        f"{RACE.told()}; just before your statement {point} ({got.statements[point - 1]}), after your "
                        f"statement {point - 1} ({got.statements[point - 2]}): {act.told}")
        ours, theirs = arena.under(learner, RACE, hold), arena.under(ref, RACE, hold)
        finding = _differs(ours, theirs)
        if finding is not None:
            return _told(finding, TWO_WORKERS), f"{RACE.told()}; {hold.told}; meanwhile yours runs"
    finally:
        arena.close()
        runner.reset(Stay())
    return None


def _differs(ours: diff.Outcome, theirs: diff.Outcome) -> diff.Finding | None:
    if _status(ours.state, FIRST) != _status(theirs.state, FIRST):
        return diff.Finding("", got=f"booking {FIRST} {_status(ours.state, FIRST)}",
                            expected=f"booking {FIRST} {_status(theirs.state, FIRST)}")
    if _rooms(ours.state) != _rooms(theirs.state):
        return diff.Finding("", got=f"rooms left {_rooms(ours.state)}", expected=f"{_rooms(theirs.state)}")
    if ours.raised and not theirs.raised:
        return diff.Finding("", got=f"yours raised {ours.raised}", expected="no error")
    return None


def _told(finding: diff.Finding, name: str, *, lost: bool = False) -> diff.Finding:
    """The finding under the act's own rule, with its cause in the learner's terms."""
    if name == LOST_UPDATE and lost:
        note = ("your UPDATE wrote a rooms_left computed from the value you read before it: the other worker's room, "
                "taken in between, was lost (a lost update). Let the database subtract: SET rooms_left = "
                "rooms_left - 1 (or read the hotel FOR UPDATE)")
    elif name == CANCELLED:
        note = ("your code saw the booking 'pending', then confirmed it after support had cancelled it: let the "
                "UPDATE's WHERE decide (AND status = 'pending'), not a SELECT before it")
    else:
        note = ("both runs of the job acted on one booking: only the run whose UPDATE ... WHERE status = 'pending' "
                "changed it may take the room (RETURNING gives that run a row); a status read before, by a SELECT, "
                "may be stale by the time you write")
    return replace(finding, check=name, note=note)


def killed(t: Trial, runner: Runner) -> tuple[diff.Finding, str] | None:
    """Killed just before each of its statements after the first, then the job delivered again: the booking
    confirmed and one room taken, as after the reference killed anywhere and run again."""
    first = stayhub.job(FIRST)
    theirs = runner.run(RACE, reference)
    steps = _killed_at(runner, first, 0)[0]
    for point in range(2, len(steps) + 1):
        said, state = _killed_at(runner, first, point)
        if _status(state, FIRST) != _status(theirs.state, FIRST) or _rooms(state) != _rooms(theirs.state):
            return diff.Finding(KILLED, got=f"booking {FIRST} {_status(state, FIRST)}, rooms left {_rooms(state)}",
                                expected=f"booking {FIRST} {_status(theirs.state, FIRST)}, rooms left "
                                f"{_rooms(theirs.state)}", note=(
                                    "what your statements before the kill did had committed on its own, and the run "
                                    "after it found nothing left to do. Both updates in one transaction")), \
                (f"{RACE.told()}; the worker killed just before your statement {point} ({said[point - 1]}), after "
                 f"your statement {point - 1} ({said[point - 2]}); then the job delivered again (attempt 2)")
    return None


def _killed_at(runner: Runner, first, point: int) -> tuple[list[str], dict]:
    runner.reset(RACE)
    conn = runner.box.connect()
    kill = interleave.KillPoint(runner.watch, conn, point)
    try:
        with kill.watching():
            runner.learner(first)(conn)
    except interleave.Killed:
        pass
    finally:
        conn.close()
    if point:
        with runner.box.connect() as again:
            runner.learner(stayhub.redelivered(first))(again)
    return kill.steps, runner.reader.read(runner.watch)


# -- in real workers ------------------------------------------------------------------------------------------------


def in_workers(t: Trial, box, confirm_booking, seed: int) -> None:
    """Eight bookings in three hotels, two worker processes SIGKILLed after the work, before the ack."""
    box.conn.execute("DELETE FROM jobs; DROP TABLE loyalty_points, processed, bookings, hotels")
    bookings = stayhub.install_stayhub(box.conn)[4:12]
    scenario = faults.Scenario(confirm_booking, [{"booking_id": b} for b in bookings], workers=2, concurrency=2,
                               lease_s=1.0, faults=faults.Faults(kill_after_work=0.3, max_kills=3),
                               timeout_s=stayhub.WORKERS_TIMEOUT_S)
    result = faults.run(box, scenario, seed=seed)
    faults.expect_finished(t, result)
    confirmed = box.conn.execute("SELECT count(*) FROM bookings WHERE id = ANY(%s) AND status = 'confirmed'",
                                 [bookings]).fetchone()[0]
    rooms = dict(box.conn.execute("SELECT id, rooms_left FROM hotels ORDER BY id").fetchall())
    taken = {h: stayhub.ROOMS - n for h, n in rooms.items()}
    hotels = dict(box.conn.execute("SELECT id, hotel_id FROM bookings WHERE id = ANY(%s)", [bookings]).fetchall())
    should = Counter(hotels[b] for b in bookings)
    should = {h: should.get(h, 0) for h in sorted(stayhub.HOTELS)}
    reran = [job for job, runs in result.executions().items() if runs > 1]
    t.expect(WORKERS, ok=confirmed == len(bookings) and taken == should,
             got=f"{confirmed} confirmed, rooms taken per hotel {taken}",
             expected=f"{len(bookings)} confirmed, rooms taken per hotel {should}",
             example=f"{len(bookings)} bookings in 3 hotels, 2 worker processes SIGKILLed after the work, before the ack",
             note=result.timeline(reran[0]) if reran and sum(taken.values()) != confirmed else None)


# -- the check -----------------------------------------------------------------------------------------------------


@exercise_check("06.confirm_booking")
def confirm_booking_check(t: Trial, confirm_booking, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    box.conn.execute(lab_sql.query("lab06", "tables"))
    runner = Runner(t, box, confirm_booking)
    verdicts = diff.Verdicts(t, CHECKS[:-1])

    def compare(stay: Stay) -> diff.Finding | None:
        found = judge(stay, runner.run(stay, runner.learner), runner.run(stay, reference))
        if found is not None and found.check == ONE_TX:  # the failure's fault, or the answer's without it?
            plain = replace(stay, fault=None)
            return judge(plain, runner.run(plain, runner.learner), runner.run(plain, reference)) or found
        return found

    try:
        diff.search(verdicts, diff.in_turn(families()), compare, seed=t.seed, count=SCENARIOS)
        if compare(RACE) is None:  # the stages below build on an answer right on its own
            for stage in (race, killed):
                found = stage(t, runner)
                if found is not None:
                    verdicts.add(*found)
    finally:
        runner.close()
    verdicts.report()
    if all(result.passed for result in t.results):  # real workers only for an answer that passed the steps
        in_workers(t, box, confirm_booking, t.seed)

"""Checks that more than one lab asks for: one requirement, one checker, one set of messages.

    backoff with full jitter        07.backoff: wait random(0, min(300, 2^(attempt-1))) s
    the wait grows                  07.backoff: the mean wait doubles with each attempt, up to the cap
    jobs in the business transaction 02.place_order, 12.checkout: both or neither
    no external call in a transaction 12.checkout: the card is charged before the transaction opens
    the idempotent send             06.send_confirmation: one email, a worker killed
                                    at each critical point

A later lab that asks again for what an earlier lab checked calls the checker here, so an answer the
earlier lab rejects cannot pass the later one (a retry policy in lab 12 once accepted a cap applied
after the draw, which 07.backoff rejects).

Why one module: it is one idea, the rules the course asks for more than once, each judged in one place
with one set of messages; a lab's own checks (labNN.py) call in for the rule and add only what is theirs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from types import ModuleType

import psycopg
from psycopg.pq import TransactionStatus

from course.core import queue
from course.core.backoff import CAP_S, backoff_ceiling
from course.infra import processes
from course.infra.processes import wait_until
from course.programs.http import call as http_call

from course.grading import distributions, faults
from course.grading.trial import Stop, Trial
from course.grading.faults import killpoint

DRAWS = 2_000  # per attempt; with FALSE_ALARM shared among ~20 attempts' tests, spreads are judged to ~7 %
BELOW_CAP = (1, 2, 3, 4, 6, 8, 9)  # ceilings 1 s .. 256 s
AT_CAP = (10, 12, 20, 40)  # 2^(n-1) > 300 s: the cap decides


def is_seconds(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclasses.dataclass(frozen=True)
class Raised:
    """What `draw(n)` returns when the answer raised instead of giving waits (its error, in one line)."""
    error: str


def backoff_budget(attempts: int) -> distributions.Budget:
    """The false-alarm budget of the backoff rule over that many attempts: three tests each (the two ends of
    the range, the spread), FALSE_ALARM in all."""
    return distributions.Budget(distributions.FALSE_ALARM, tests=attempts)


def expect_backoff_with_full_jitter(t: Trial, draw: Callable[[int], "list | Raised"], call: str, *,
                                    at_cap: tuple[int, ...] = AT_CAP,
                                    attempts: tuple[int, ...] | None = None) -> dict[int, list]:
    """The rule: after attempt n failed, wait random(0, min(300, 2^(n-1))) seconds, spread evenly.

    `draw(n)` returns DRAWS waits for attempt n (through t.call or t.attempt: learner code), or Raised when
    the answer raised; `call` names one call in the messages, with {n} for the attempt: "backoff({n}, rng)",
    "retry_delay({n})". The attempts judged are BELOW_CAP + at_cap, or `attempts` (from 1 to the
    thousands), each compared with the reference's law, uniform on [0, backoff_ceiling(n)], by
    distributions.Law.problem within backoff_budget: a right answer fails with probability at most
    FALSE_ALARM. A range failure is the first cause: the spread is judged only on attempts whose draws
    all lie in range, and the smallest attempt that shows a failure is the example. Returns the draws,
    by attempt, for a caller that judges more of them (expect_growth)."""
    tried = tuple(sorted(set(attempts if attempts is not None else BELOW_CAP + at_cap)))
    budget = backoff_budget(len(tried))
    got = {attempt: draw(attempt) for attempt in tried}
    raised = [(a, g.error) for a, g in got.items() if isinstance(g, Raised)]
    draws = {a: g for a, g in got.items() if not isinstance(g, Raised)}
    not_numbers = [(a, v) for a, values in draws.items() for v in values if not is_seconds(v)]
    if raised and (not not_numbers or raised[0][0] < not_numbers[0][0]):  # the smallest attempt is the example
        error = raised[0][1]
        t.expect("returns a number of seconds", ok=False, got=f"raised {error.split(':')[0]}",
                 expected="an int or a float, like 0.73", example=call.format(n=raised[0][0]),
                 note="\n".join(filter(None, (f"your code raised {error}", _overflow_note(error, raised[0][0])))))
    else:
        t.expect("returns a number of seconds", ok=not not_numbers, got=not_numbers[0][1] if not_numbers else None,
                 expected="an int or a float, like 0.73",
                 example=call.format(n=not_numbers[0][0]) if not_numbers else None)
    if not_numbers or not draws:
        raise Stop  # nothing more can be judged of waits that are not numbers
    tried = tuple(draws)  # the attempts that gave waits: judged on, whatever the others raised

    below_cap = [a for a in tried if backoff_ceiling(a) < CAP_S]
    outside = [(a, v) for a in below_cap for v in draws[a] if not 0 <= v <= backoff_ceiling(a)]
    first = outside[0] if outside else None
    t.expect("waits between 0 and 2^(attempt-1) s: up to 1 s, 2 s, 4 s ...", ok=not outside,
             got=f"{first[1]:.4g} s" if first else None,
             expected=f"0 to {backoff_ceiling(first[0]):g} s" if first else None,
             example=call.format(n=first[0]) if first else None,
             note="attempt counts from 1: after the first failed attempt, wait up to 2^0 = 1 s" if first else None)

    over_cap = [(a, v) for a in tried if a not in below_cap for v in draws[a] if not 0 <= v <= CAP_S]
    first = over_cap[0] if over_cap else None
    t.expect("never more than 5 minutes, however many attempts (the cap)", ok=not over_cap,
             got=f"{first[1]:,.4g} s" if first else None, expected=f"0 to {CAP_S:g} s" if first else None,
             example=call.format(n=first[0]) if first else None,
             note="cap the ceiling before you draw: min(300, 2^(attempt-1))" if first else None)

    in_range = [a for a in tried if all(0 <= v <= backoff_ceiling(a) for v in draws[a])]
    laws = {a: distributions.Law.uniform(0, backoff_ceiling(a)) for a in in_range}
    problems = [(a, laws[a].problem(draws[a], budget.alpha)) for a in in_range]
    problems = [(a, why) for a, why in problems if why]
    first = problems[0] if problems else None
    t.expect("full jitter: waits spread evenly from 0 to the ceiling, so jobs that failed together come back "
             "apart", ok=not problems,
             got=distributions.describe(draws[first[0]]) if first else None,
             expected=f"spread evenly over 0 to {backoff_ceiling(first[0]):g} s" if first else None,
             example=f"{call.format(n=first[0])}, {len(draws[first[0]]):,} times" if first else None,
             note=(first[1] + "\n(random.uniform(0, ceiling) draws evenly; capping *after* the draw, or "
                   "adding jitter on top of a fixed part, does not)") if first else None)
    return draws


def _overflow_note(error: str, attempt: int) -> str | None:
    if "OverflowError" not in error:
        return None
    return (f"attempts go on into the thousands (a job retried for days), and 2.0 ** {attempt - 1} is too large "
            "for a float: compare with the cap first, or use whole numbers (2 ** (attempt - 1) is exact)")


GROWTH = "the wait grows with each attempt: the mean wait doubles from one attempt to the next, up to the cap"


def expect_growth(t: Trial, draws: dict[int, list], call: str) -> None:
    """The rule: the wait grows with each attempt, below the cap — the mean wait doubles with the ceiling.

    Its own check, so an answer that never grows (rng.uniform(0, 1) for every attempt) hears that, not
    only that its draws miss the ceiling. Judged on consecutive attempts below the cap; a mean of 2,000
    uniform draws lies within eps × ceiling of half its ceiling whenever their spread passes (the KS
    distance bounds the mean's error), and with eps under 7 % that is at least three quarters of the growth
    the ceilings give (1.5 times the last mean when the ceiling doubles): this check fails a right answer
    only when the spread check does too, within its false-alarm rate."""
    attempts = [a for a in sorted(draws) if backoff_ceiling(a) < CAP_S and all(is_seconds(v) for v in draws[a])]
    means = {a: sum(draws[a]) / len(draws[a]) for a in attempts}
    flat = [(a, b) for a, b in zip(attempts, attempts[1:])
            if means[b] < 1.5 * means[a] * backoff_ceiling(b) / (2 * backoff_ceiling(a))]
    if not flat:
        t.expect(GROWTH, ok=True)
        return
    a, b = flat[0]
    t.expect(GROWTH, ok=False, got=f"mean wait {means[a]:.3g} s after attempt {a}, {means[b]:.3g} s after attempt {b}",
             expected=f"about {backoff_ceiling(a) / 2:g} s, then about {backoff_ceiling(b) / 2:g} s",
             example=f"{call.format(n=a)} and {call.format(n=b)}, {DRAWS:,} times each",
             note="the ceiling is 2^(attempt-1) s: it doubles with each attempt, until the 5-minute cap")


# -- intercepting what the learner's code calls ---------------------------------------------------------


@contextlib.contextmanager
def intercepting(learner_fn: Callable, name: str, before: Callable[..., None], *,
                 module: ModuleType | None = None) -> Iterator[None]:
    """Call before(*args, **kwargs) ahead of every call the learner's function makes to `name`, then the
    real function. `name` is found where the learner's code looks it up: a global of its cell (a helper the
    notebook's set-up defines, or `from m import name`) and, with `module`, the attribute `module.name`
    (`stayhub.charge(...)`). Both are put back afterwards."""
    if hasattr(learner_fn, "spying"):  # the learner's function in its own process (class grading)
        with learner_fn.spying(name, before, module=module.__name__ if module is not None else None):
            yield
        return
    namespace = getattr(learner_fn, "__globals__", {})
    real = getattr(module, name) if module is not None else namespace.get(name)
    if real is None:
        yield
        return

    def watched(*args, **kwargs):
        before(*args, **kwargs)
        return real(*args, **kwargs)

    watched.__wrapped__ = real
    patched_global = namespace.get(name) is real
    if patched_global:
        namespace[name] = watched
    if module is not None:
        setattr(module, name, watched)
    try:
        yield
    finally:
        if patched_global:
            namespace[name] = real
        if module is not None:
            setattr(module, name, real)


@contextlib.contextmanager
def with_entries(learner_fn: Callable, table: dict, module: ModuleType, name: str, entries: dict) -> Iterator[None]:
    """`module.name` (the dict `table`) holds these entries too while inside, for the learner's function
    as well (in its own process, in class grading); removed afterwards."""
    table.update(entries)
    try:
        if hasattr(learner_fn, "updating"):
            with learner_fn.updating(module.__name__, name, entries):
                yield
        else:
            yield
    finally:
        for key in entries:
            table.pop(key, None)


# -- the job is written in the business transaction: 02.place_order, 12.checkout -------------------------


REFUSE_INSERTS = """
CREATE OR REPLACE FUNCTION rules_refuse_insert() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'injected: the insert into % failed', TG_TABLE_NAME; END $$;
CREATE TRIGGER rules_refuse_insert BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION rules_refuse_insert();
"""
REFUSE_COMMIT = """
CREATE OR REPLACE FUNCTION rules_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'injected: the transaction that wrote into % could not commit', TG_TABLE_NAME; END $$;
CREATE CONSTRAINT TRIGGER rules_refuse_commit AFTER INSERT ON {table}
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION rules_refuse_commit();
"""


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _rows(conn, table: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def _failing(conn, place: Callable, fault: str, table: str) -> BaseException | None:
    """Run the producer once while `fault` is installed on `table`; what it raised (None: it returned).
    The connection is left outside any transaction, and the fault removed."""
    conn.execute(fault.format(table=table))
    try:
        place(conn)
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001 (the injected failure, as the learner's code let it through)
        return error
    finally:
        with contextlib.suppress(Exception):
            if conn.info.transaction_status != TransactionStatus.IDLE:
                conn.rollback()
        conn.execute(f"DROP TRIGGER IF EXISTS rules_refuse_insert ON {table}; "
                     f"DROP TRIGGER IF EXISTS rules_refuse_commit ON {table}")
    return None


def expect_jobs_in_the_business_transaction(t: Trial, place: Callable, conn, *, table: str, thing: str, told: str,
                                            gets: str, call: str) -> None:
    """The rule: the business row (an order, a booking) and its jobs are stored together or not at all, in
    the transaction of the connection the producer is given.

    `place(conn)` runs the learner's producer once (a new order each time); `table` is the business
    table, `thing` its row in words ("order"), `told` what the customer must not hear ("the customer is
    not told 'order placed'"), `gets` what the job brings them ("a receipt") and `call` the call in the
    messages. Four faults, each judged by what is
    left in the tables: the job's insert fails; the business row's insert fails; the business row's
    COMMIT fails (a deferred constraint); the caller rolls its own transaction back."""
    def counts() -> tuple[int, int]:
        return _rows(conn, table), _rows(conn, "jobs")

    before = counts()
    raised = _failing(conn, place, REFUSE_INSERTS, "jobs")
    stored = counts()[0] - before[0]
    t.expect(f"when the job cannot be stored, the {thing} is not stored either (one transaction)",
             got=f"{stored} {thing}(s) stored", expected=f"0 {thing}s stored", ok=stored == 0,
             example=f"{call} while the jobs table refuses every insert (an injected failure)",
             note=f"{_a(thing)} without its job is a customer who paid and never gets {gets}: store both in one "
                  "transaction (with conn.transaction(): ...), on the connection you are given" if stored else None)
    t.expect(f"and the failure reaches the caller ({told})", ok=raised is not None, got="returned normally",
             expected="an exception", example=f"{call} while the jobs table refuses every insert",
             note="let the exception through: catching it tells the caller all went well")

    before = counts()
    _failing(conn, place, REFUSE_INSERTS, table)
    jobs = counts()[1] - before[1]
    t.expect(f"when the {thing} cannot be stored, no job is stored either", got=f"{jobs} job(s) stored",
             expected="0 jobs stored", ok=jobs == 0, example=f"{call} while every INSERT INTO {table} fails",
             note=f"a job for {_a(thing)} that does not exist: write the {thing} first, in the job's transaction"
             if jobs else None)

    before = counts()
    _failing(conn, place, REFUSE_COMMIT, table)
    jobs = counts()[1] - before[1]
    t.expect(f"if the {thing} does not commit, no job is left behind (no job for {_a(thing)} that does not exist)",
             got=f"{jobs} job(s) left", expected="0 jobs left", ok=jobs == 0,
             example=f"{call} whose COMMIT fails (a deferred constraint on {table})",
             note="jobs written on another connection, or committed before the "
                  f"{thing}, survive its failure: use the connection you are given, inside one transaction"
             if jobs else None)

    before = counts()
    with conn.transaction():
        t.call(place, conn, during=f"{call} inside the caller's transaction")
        ended = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # a COMMIT of its own
        raise psycopg.Rollback  # the caller rolls back: psycopg ends the block without committing
    left = tuple(n - b for n, b in zip(counts(), before))
    t.expect(f"uses the connection it is given (the caller's rollback takes the {thing} and its job away)",
             got=f"{left[0]} {thing}(s), {left[1]} job(s) left", expected=f"0 {thing}s, 0 jobs left",
             ok=left == (0, 0), example=f"with conn.transaction(): {call}; then roll back",
             note=None if left == (0, 0) else
             "your COMMIT ended the caller's transaction: use `with conn.transaction():`, which nests in the "
             "caller's (a savepoint), instead of BEGIN and COMMIT by hand" if ended else
             "open no connection of your own: the caller's transaction decides")


# -- no external call inside an open transaction: 12.checkout ------------------------------------------


def expect_called_outside_any_transaction(t: Trial, learner_fn: Callable, run: Callable[[], object], conn, *,
                                          name: str, module: ModuleType | None, what: str, call: str) -> None:
    """The rule: no transaction is open on `conn` while the learner's code calls `name` (an external
    service: a card charge, an email). A transaction held open while another company's server thinks
    holds its row locks and its connection for nothing, and its work cannot be rolled back anyway.
    `run()` calls the learner's function once (through t.call)."""
    seen: list[bool] = []
    with intercepting(learner_fn, name, lambda *a, **k: seen.append(
            conn.info.transaction_status != TransactionStatus.IDLE), module=module):
        run()
    inside = sum(seen)
    t.expect(f"{what} is called with no transaction open (not inside the transaction)",
             ok=bool(seen) and not inside,
             got=("never called" if not seen else f"called {len(seen)} time(s), {inside} of them inside an open "
                  "transaction"), expected="called before the transaction opens", example=call,
             note=(f"call {name} before `with conn.transaction():`: a transaction left open while another company's "
                   "server thinks holds its locks and its connection for nothing") if inside else None)


# -- the idempotent send: 06.send_confirmation -----------------------------------------------------------


def outcome(handler, job, conn) -> BaseException | None:
    """Run one attempt in this process; what it raised (None: it returned), as a worker would see it."""
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001 (the learner's handler may raise anything)
        return error
    finally:
        with contextlib.suppress(psycopg.Error):
            if conn.info.transaction_status != TransactionStatus.IDLE:
                conn.rollback()
    return None


def said(result: BaseException | None) -> str:
    return "returned" if result is None else f"raised {type(result).__name__}"


def booking_job(booking_id: int, attempts: int = 1, max_attempts: int = 8) -> queue.Job:
    """A job for this booking as a worker hands it to the handler: attempt `attempts`, a lease of its own."""
    return queue.Job(id=0, queue="default", type=faults.TASK, payload={"booking_id": booking_id}, priority=0,
                     attempts=attempts, max_attempts=max_attempts, lease_token=uuid.uuid4(),
                     lease_expires_at=datetime.now(timezone.utc))


def _in_flight(provider) -> int:
    reply = http_call("GET", f"{provider.url}/health", timeout=5.0)
    return reply.data.get("requests_in_flight", 0) if reply.ok else 0


@dataclasses.dataclass
class Send:
    """What the idempotent-send rule needs to know about one lab's email handler and its world."""
    handler: Callable  # handler(job, conn): the learner's
    provider: object  # the EmailProvider the handler sends through
    env: dict[str, str]  # how the handler finds the provider
    marks: str  # the table the handler's row goes into ("processed", "confirmations")
    key: str  # the key in words, for the notes: "confirm:<booking id>"
    emails: Callable[[int], int]  # booking id -> emails the provider delivered for it
    keys: Callable[[int], list]  # booking id -> the Idempotency-Keys the provider was sent for it
    latency_s: float  # the provider's usual latency, put back after the mid-send kill


def expect_one_email_through_kills(t: Trial, box, send: Send, bookings: tuple[int, int, int]) -> None:
    """The rule: however often the job runs, the guest gets one email. A worker is SIGKILLed at each point
    where a crash can double an email, each followed by a re-run (the next attempt): after the send and
    before the commit, while the provider is delivering, after the commit and before the ack. Placed on
    cue by killpoint.run_and_kill, not at random, so no seed can miss one."""
    before_commit, mid_send, before_ack = bookings
    no_key = ("the first run's row was rolled back with the crash, so your table cannot remember this send: "
              "only the provider can recognise the repeat — send with idempotency_key= the same key as your row "
              f"({send.key}); the provider saw Idempotency-Keys {{keys}}")

    def judge(name: str, booking_id: int, example: str, note_if_doubled: str) -> None:
        got = send.emails(booking_id)
        t.expect(name, got=got, expected=1, example=example,
                 note=(note_if_doubled.format(keys=send.keys(booking_id)) if got > 1 else
                       "the guest got no email: the re-run must send when the first run's work was lost"
                       if got == 0 else None))

    def again(booking_id: int) -> BaseException | None:
        with processes.environment(send.env):
            return outcome(send.handler, booking_job(booking_id, attempts=2), box.conn)

    # After the send, before the commit: a deferred trigger holds the commit until the worker is killed.
    killpoint.hold_commit(box.conn, send.marks)
    try:
        what = killpoint.run_and_kill(box, send.handler, booking_job(before_commit),
                                      when=killpoint.waiting_at_commit(box), env=send.env)
    finally:
        killpoint.release_commit(box.conn, send.marks)
    second = again(before_commit)
    judge("a worker killed after the send, before the commit, then the job runs again: one email", before_commit,
          f"booking {before_commit}: attempt 1 SIGKILLed while its transaction commits ({what}), "
          f"then attempt 2 ({said(second)})", no_key)

    # While the provider delivers: the request has arrived (it will be delivered), the reply never will.
    send.provider.configure(latency_s=1.0)
    try:
        what = killpoint.run_and_kill(box, send.handler, booking_job(mid_send),
                                      when=lambda name: _in_flight(send.provider) > 0, env=send.env)
        wait_until(lambda: _in_flight(send.provider) == 0, 10.0, interval=0.05, what="the provider's last delivery")
    finally:
        send.provider.configure(latency_s=send.latency_s)
    second = again(mid_send)
    judge("a worker killed while the provider was delivering its email, then the job runs again: one email",
          mid_send, f"booking {mid_send}: attempt 1 SIGKILLed while its request was at the provider ({what}), "
                    f"then attempt 2 ({said(second)})", no_key)

    # After the commit, before the ack: the whole first run happened, and the job comes back.
    with processes.environment(send.env):
        first = outcome(send.handler, booking_job(before_ack), box.conn)
    second = again(before_ack)
    example = (f"booking {before_ack}: attempt 1 ran to the end ({said(first)}) but was never acked, "
               f"then attempt 2 ({said(second)})")
    judge("a worker killed after the commit, before the ack, then the job runs again: one email", before_ack,
          example, f"a second run must find what the first one did: the same key every time ({send.key}), "
                   "in your table and as the Idempotency-Key; the provider saw Idempotency-Keys {keys}")
    t.expect("that re-run returns normally: the work is done, so the job is acked (not retried to the dead-letter "
             "table)", ok=first is None and second is None, got=f"attempt 1 {said(first)}, attempt 2 {said(second)}",
             expected="both returned", example=example,
             note="INSERT ... ON CONFLICT (key) DO NOTHING RETURNING key: no row back means an earlier run sent it; "
                  "return, do not raise" if second is not None else None)
    asked = len(send.keys(before_ack))
    t.expect(f"that re-run stops at its {send.marks} row: no second request to the provider", got=asked,
             expected=1, example=example,
             note="no row back from the INSERT means an earlier run already sent it: stop before calling the "
                  "provider (its memory of keys does not last forever; the row does)" if asked > 1 else None)

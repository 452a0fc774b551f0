"""05.place_order: the learner's place_order and the reference run on the same Tiffin tables, drawn from
everything the statement allows (any of the customers, the demo's five and others, totals from 1 cent to
the largest an int holds, orders and jobs stored already, the same customer ordering twice, an insert or a
commit that fails, a customer who does not exist, a call inside the caller's own transaction that is then
rolled back; the customers' rows are compared too); then with another session looking between
its statements, and killed between any two of them.

What is free, and not compared: the job's id, priority, max_attempts and unique_key; which write comes
first; how the transaction is opened.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import queue
from course.programs import tiffin

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check
from course.grading.checks.shared import REFUSE_COMMIT, REFUSE_INSERTS
from course.grading.snapshot import MISSING, At, Reader
from course.grading.trial import Attempt, Trial, short

DEFAULT_SEED = 5
SCENARIOS = 30  # five of each family
SLACK_S = 2.0  # times written by two runs a moment apart (committed runs, a loaded machine)
FIRST_ORDER = 9812
FREE_JOB_COLUMNS = ("id", "priority", "max_attempts", "unique_key")
JOB_TYPES = ("send_receipt", "send_invoice", "refund_order", "notify_courier")

# -- a checkout, in the learner's words ---------------------------------------------------------------------


@dataclass(frozen=True)
class Checkout:
    """A scenario: what is stored already, the call, and what goes wrong."""
    customer: int = 1
    total: int = 2350
    orders: int = 0  # orders stored already: 9812, 9813, ...
    jobs: tuple[str, ...] = ()  # jobs waiting already, by type (send_receipt ones for the orders above)
    fault: str | None = None  # "job refused", "order refused", "commit refused"
    caller: str = "autocommit"  # or "rolls back": called inside the caller's transaction, which rolls back
    again: bool = False  # the same call made a second time right after (the customer orders the same again)

    @property
    def call(self) -> str:
        return f"place_order(conn, {self.customer}, {self.total})"

    def told(self) -> str:
        parts = []
        if self.orders:
            last = FIRST_ORDER + self.orders - 1
            parts.append(f"order{'s' if self.orders > 1 else ''} {FIRST_ORDER}" + (f"-{last}" if self.orders > 1 else "")
                         + " stored already")
        if self.jobs:
            parts.append(f"job{'s' if len(self.jobs) > 1 else ''} waiting: {', '.join(self.jobs)}")
        call = f"{self.call}, then the same call again (the customer orders a second time)" if self.again else self.call
        told = "; ".join(parts + [call]) if parts else f"an empty orders table; {call}"
        if self.customer not in CUSTOMERS:
            told += f" (there is no customer {self.customer})"
        told += {None: "", "job refused": "; the jobs table refuses every insert (an injected failure)",
                 "order refused": "; every INSERT INTO orders fails (an injected failure)",
                 "commit refused": "; the order cannot commit (a deferred constraint on orders fails)"}[self.fault]
        if self.caller == "rolls back":
            told = f"inside the caller's transaction ({told}), which the caller then rolls back"
        return told

    def shrinks(self) -> Iterator["Checkout"]:
        if self.orders:
            yield replace(self, orders=0, jobs=tuple(j for j in self.jobs if j != "send_receipt"))
        if self.jobs:
            yield replace(self, jobs=())
            if len(self.jobs) > 1:
                yield replace(self, jobs=self.jobs[:1])
        if self.caller != "autocommit":
            yield replace(self, caller="autocommit")
        if self.fault:
            yield replace(self, fault=None)
        if self.again:
            yield replace(self, again=False)
        if self.customer != 1 and self.customer in CUSTOMERS:
            yield replace(self, customer=1)
        if self.total != 2350 and self.total >= 1:
            yield replace(self, total=2350)


DEMO_CUSTOMERS = range(1, 6)  # tiffin.install's demo customers
CUSTOMERS = (*DEMO_CUSTOMERS, 6, 31, 1001)  # and others: an answer special-cased to the demo's five shows
UPDATED_S = -3600.0  # every customer's row was last changed an hour ago: a checkout that touches one shows


def install_customers() -> sql.Composable:
    """The customers, every scenario the same (the rows a checkout must leave as they were)."""
    rows = [[sql.Literal(c), sql.Literal(f"Customer {c}"), sql.Literal(f"customer{c}@example.com"),
             sql.Literal(f"{c} Dinner Street"), diff.from_now(UPDATED_S)] for c in CUSTOMERS]
    return sql.SQL("DELETE FROM customers; INSERT INTO customers (id, name, email, address, updated_at) ") + diff.values(rows)


def install(checkout: Checkout) -> sql.Composable:
    """The orders and jobs stored already, and the sequences where they stand (both runs take the same ids)."""
    parts = [sql.SQL("SELECT setval(pg_get_serial_sequence('orders', 'id'), {}, false), "
                     "setval(pg_get_serial_sequence('jobs', 'id'), {}, false)").format(
        sql.Literal(FIRST_ORDER + checkout.orders), sql.Literal(len(checkout.jobs) + 1))]
    if checkout.orders:
        parts.append(sql.SQL("INSERT INTO orders (id, customer_id, total_cents, created_at) ") + diff.values(
            [[sql.Literal(FIRST_ORDER + n), sql.Literal(1 + n % 5), sql.Literal(1000 + 10 * n), diff.from_now(-60.0 + n)]
             for n in range(checkout.orders)]))
    if checkout.jobs:
        receipts = iter(range(FIRST_ORDER, FIRST_ORDER + checkout.orders))
        rows = []
        for n, kind in enumerate(checkout.jobs, start=1):
            payload = {"order_id": next(receipts, FIRST_ORDER)} if kind == "send_receipt" else {"n": n}
            rows.append([sql.Literal(n), sql.Literal(kind), sql.Literal(Jsonb(payload)), diff.from_now(-30.0 + n)])
        parts.append(sql.SQL("INSERT INTO jobs (id, type, payload, run_at) ") + diff.values(rows))
    return sql.SQL("; ").join(parts)


def _fault(checkout: Checkout) -> str:
    return {None: "", "job refused": REFUSE_INSERTS.format(table="jobs"),
            "order refused": REFUSE_INSERTS.format(table="orders"),
            "commit refused": REFUSE_COMMIT.format(table="orders")}[checkout.fault]


NO_FAULTS = ("DROP TRIGGER IF EXISTS rules_refuse_insert ON jobs; DROP TRIGGER IF EXISTS rules_refuse_insert ON orders; "
             "DROP TRIGGER IF EXISTS rules_refuse_commit ON orders")


# -- drawing checkouts ------------------------------------------------------------------------------------------


def _customer(rng: random.Random) -> int:
    return rng.choice(CUSTOMERS)


def _total(rng: random.Random) -> int:
    return rng.choice([2350, 1890, 1, 99, 120000, 2_147_483_647])


def _waiting(rng: random.Random) -> tuple[int, tuple[str, ...]]:
    orders = rng.choice([0, 1, 3, 6])
    jobs = tuple(rng.choice(JOB_TYPES) for _ in range(rng.choice([0, 1, 2, 4])))
    return orders, jobs


def families() -> list[Callable[[random.Random], Checkout]]:
    def plain(rng):
        return Checkout(_customer(rng), _total(rng))

    def busy(rng):  # orders and jobs stored already
        orders, jobs = _waiting(rng)
        return Checkout(_customer(rng), _total(rng), max(orders, 1), jobs or ("send_invoice",))

    def refused(rng):  # a write that fails: the job's insert, the order's insert, or the order's commit
        orders, jobs = _waiting(rng)
        return Checkout(_customer(rng), _total(rng), orders, jobs,
                        fault=rng.choice(["job refused", "order refused", "commit refused"]))

    def caller(rng):  # called inside the caller's transaction, which then rolls back
        orders, jobs = _waiting(rng)
        return Checkout(_customer(rng), _total(rng), orders, jobs, caller="rolls back")

    def impossible(rng):  # the database or tiffin.place_order refuses the order itself
        orders, jobs = _waiting(rng)
        if rng.random() < 0.5:
            return Checkout(rng.choice([7, 77, 4242]), _total(rng), orders, jobs)
        return Checkout(_customer(rng), rng.choice([0, -5]), orders, jobs)

    def twice(rng):  # the same customer orders the same again: each order needs its own receipt job
        orders, jobs = _waiting(rng)
        return Checkout(_customer(rng), _total(rng), orders, jobs, again=True)

    return [plain, busy, refused, caller, impossible, twice]


# -- one run --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Odd:
    shown: str

    def __str__(self) -> str:
        return self.shown


def order_id(value: Any) -> int | Odd:
    """The contract: the order's id, an int."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return Odd(short(value))


def reference(checkout: Checkout) -> Callable[[psycopg.Connection], Attempt]:
    """The solution's place_order."""
    def run(conn):
        try:
            with conn.transaction():
                order = tiffin.place_order(conn, checkout.customer, total_cents=checkout.total)
                queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
            return Attempt(value=order["id"])
        except Exception as error:  # noqa: BLE001 (the injected failures, a customer who does not exist)
            return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)
    return run


@dataclass(frozen=True)
class Seen:
    returned: Any
    raised: str | None
    state: dict  # orders and jobs, as the caller sees them once place_order returned (its transaction over)


class Runner:
    """Runs a place_order on a scenario: the rows written and committed, the call, what it left."""

    def __init__(self, t: Trial, box, answer: Callable):
        self.t, self.box, self.answer = t, box, answer
        self.watch = box.connect()
        self.reader = Reader.of(box.conn, only=("orders", "jobs", "dead_jobs"))
        self.people = Reader.of(box.conn, only=("customers",))  # read, never cleared: reset writes them again

    def learner(self, checkout: Checkout) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: self.t.attempt(self.answer, conn, checkout.customer, checkout.total)

    def reset(self, checkout: Checkout) -> None:
        self.watch.execute(NO_FAULTS)
        diff.clear(self.watch, self.reader)
        self.watch.execute(install_customers())
        self.watch.execute(install(checkout))
        if checkout.fault:
            self.watch.execute(_fault(checkout))

    def run(self, checkout: Checkout, answer: Callable[[psycopg.Connection], Attempt],
            conn: psycopg.Connection | None = None) -> Seen:
        self.reset(checkout)
        conn = conn or self.box.conn
        try:
            if checkout.caller == "rolls back":
                with conn.transaction():
                    done = answer(conn)
                    raise psycopg.Rollback  # psycopg ends the block here, rolled back
            else:
                done = answer(conn)
                if checkout.again and not done.error:
                    done = answer(conn)
        finally:
            if not conn.closed and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
            if not conn.closed and not conn.autocommit:  # an answer that turned it off: the caller's again
                conn.autocommit = True
            self.watch.execute(NO_FAULTS)
        state = {**self.reader.read(self.watch), **self.people.read(self.watch)}
        return Seen(None if done.error else order_id(done.value), done.error, state)

    def close(self) -> None:
        self.watch.execute(NO_FAULTS)
        diff.clear(self.watch, self.reader)
        self.watch.close()


# -- the checks, by rule (labs.toml names each) -------------------------------------------------------------------

RETURNS_INT = "returns the new order's id (an int)"
RETURNS_ID = "the returned id is the stored order's id"
ONE_ORDER = "stores exactly one order, for the customer and the total given"
ONE_JOB = "stores exactly one job for it, in the default queue, due now"
TYPE = "the job's type is 'send_receipt'"
PAYLOAD = "its payload is the order's id and nothing else"
UNTOUCHED = "leaves the orders and jobs stored before it, and the customers, as they were"
JOB_REFUSED = "when the job cannot be stored, the order is not stored either (one transaction)"
RAISES = "and the failure reaches the caller (the customer is not told 'order placed')"
ORDER_REFUSED = "when the order cannot be stored, no job is stored either"
COMMIT_REFUSED = "if the order does not commit, no job is left behind"
GIVEN_CONN = "uses the connection it is given (the caller's rollback takes the order and its job away)"
SEEN_HALF = "no other session ever sees the order without its job, or the job without its order"
KILLED = "a process killed between any two of its statements leaves neither the order nor its job, or both"

CHECKS = (RETURNS_INT, RETURNS_ID, ONE_ORDER, ONE_JOB, TYPE, PAYLOAD, UNTOUCHED, JOB_REFUSED, RAISES, ORDER_REFUSED,
          COMMIT_REFUSED, GIVEN_CONN, SEEN_HALF, KILLED)


def _new(state: dict, table: str, checkout: Checkout) -> dict:
    """The rows of `table` the run added (not those stored before it)."""
    before = checkout.orders if table == "orders" else len(checkout.jobs)
    first = FIRST_ORDER + before if table == "orders" else before + 1
    return {key: row for key, row in state.get(table, {}).items() if key[0] >= first}


def _old(state: dict, table: str, checkout: Checkout) -> dict:
    if table == "customers":  # a checkout adds none
        return state.get(table, {})
    new = _new(state, table, checkout)
    return {key: row for key, row in state.get(table, {}).items() if key not in new}


def _same(a, b) -> bool:
    if isinstance(a, At) and isinstance(b, At):
        return abs(a.seconds - b.seconds) <= SLACK_S
    return a == b


def _value(value) -> str:
    return str(value) if isinstance(value, At) else "no such row" if value is MISSING else short(value)


def _row_differs(ours: dict, theirs: dict, free: tuple[str, ...] = ()) -> str | None:
    return next((c for c in theirs if c not in free and not _same(ours.get(c), theirs[c])), None)


def _in_words(state: dict, checkout: Checkout) -> str:
    orders, jobs = len(_new(state, "orders", checkout)), len(_new(state, "jobs", checkout))
    return f"{orders} new order{'s' if orders != 1 else ''}, {jobs} new job{'s' if jobs != 1 else ''}"


def judge(checkout: Checkout, ours: Seen, theirs: Seen) -> diff.Finding | None:
    """The first rule the answer's outcome breaks, judged against the reference's on the same scenario."""
    raised = f"yours raised {ours.raised}" if ours.raised else None
    got, expected = _in_words(ours.state, checkout), _in_words(theirs.state, checkout)
    left_order = bool(_new(ours.state, "orders", checkout))
    left_job = bool(_new(ours.state, "jobs", checkout))
    if checkout.caller == "rolls back" and (left_order or left_job):
        return diff.Finding(GIVEN_CONN, got=f"after the caller's rollback: {got}", expected=expected, note=(
            "what you wrote survived the caller's rollback: it went through a connection or a transaction of its "
            "own. Write on the connection you are given, in its transaction (a savepoint when one is open)"))
    if theirs.raised:  # a write refused, or an order the database does not take: nothing may be left
        if left_order and checkout.fault == "job refused":
            return diff.Finding(JOB_REFUSED, got=got, expected=expected, note=(
                "a paid order with no receipt job: the customer paid and never gets a receipt. Store both in one "
                "transaction (with conn.transaction(): ...), on the connection you are given"))
        if left_job and checkout.fault == "commit refused":
            return diff.Finding(COMMIT_REFUSED, got=got, expected=expected, note=(
                "a receipt job for an order that never committed: the job was committed before the order, on its "
                "own. Store both in one transaction"))
        if left_order:  # the order the reference could not store (no such customer, no such total): yours did
            key, row = next(iter(_new(ours.state, "orders", checkout).items()))
            return diff.Finding(ONE_ORDER, got=f"order {key[0]} stored, customer {row['customer_id']}, "
                                f"{row['total_cents']} cents", expected=f"no order: the reference raised {theirs.raised}",
                                note="store the order of the customer and the total you are given")
        if left_job:
            return diff.Finding(ORDER_REFUSED, got=got, expected=expected, note=raised or (
                "a receipt job for an order that does not exist: write the order first, in the job's transaction"))
        if not ours.raised:
            return diff.Finding(RAISES, got=f"returned {ours.returned}", expected="an exception",
                                note="let the exception through: a function that returns tells the caller all went "
                                     "well, and the customer hears 'order placed' for an order that is not there")
        return _untouched(checkout, ours, theirs)
    if ours.raised and checkout.caller == "rolls back" and not left_order and not left_job:
        return None  # it cannot run inside a caller's transaction, and leaves nothing behind: allowed
    return _stored(checkout, ours, theirs, raised)


def _stored(checkout: Checkout, ours: Seen, theirs: Seen, raised: str | None) -> diff.Finding | None:
    mine, wanted = _new(ours.state, "orders", checkout), _new(theirs.state, "orders", checkout)
    if len(mine) != len(wanted):
        return diff.Finding(ONE_ORDER, got=f"{len(mine)} new order(s)", expected=f"{len(wanted)}", note=raised or (
            "tiffin.place_order(conn, customer_id, total_cents=total_cents) stores it" if not mine else None))
    for key, row in wanted.items():
        column = _row_differs(mine.get(key, {}), row)
        if column:
            return diff.Finding(ONE_ORDER, got=f"order {key[0]}'s {column}: {_value(mine.get(key, {}).get(column, MISSING))}",
                                expected=_value(row[column]), note=raised)
    jobs, wanted_jobs = list(_new(ours.state, "jobs", checkout).values()), list(_new(theirs.state, "jobs", checkout).values())
    if len(jobs) != len(wanted_jobs):
        twice = checkout.again and len(jobs) < len(wanted_jobs) and len(mine) == 2
        return diff.Finding(ONE_JOB, got=f"{len(jobs)} new job(s)" + (" for the two orders" if twice else ""),
                            expected=f"{len(wanted_jobs)}", note=raised or (
            "each order needs its own receipt job: after the customer's second order, one of the two has none. A "
            "unique_key that two orders can share (the customer's id, the total) keeps the second job out while the "
            "first is waiting: name the order in it, or leave it out" if twice else
            'queue.enqueue(conn, "send_receipt", {"order_id": ...}) stores it' if not jobs else None))
    for job, want in zip(jobs, wanted_jobs):
        if job["type"] != want["type"]:
            return diff.Finding(TYPE, got=short(job["type"]), expected=short(want["type"]),
                                note="the worker runs a job by its type: 'send_receipt' is the one that sends receipts")
        if job["payload"] != want["payload"]:
            return diff.Finding(PAYLOAD, got=short(job["payload"]), expected=short(want["payload"]), note=(
                "ids, not data: the worker reads the order fresh, so a receipt never shows what the order was "
                "before someone changed it"))
        column = _row_differs(job, want, FREE_JOB_COLUMNS)
        if column:
            return diff.Finding(ONE_JOB, got=f"the job's {column}: {_value(job[column])}", expected=_value(want[column]),
                                note="enqueue it as queue.enqueue does by default: the default queue, due now")
    found = _untouched(checkout, ours, theirs)
    if found:
        return found
    if raised:
        return diff.Finding(ONE_ORDER, got=raised, expected=f"returned {theirs.returned}")
    if isinstance(ours.returned, Odd):
        return diff.Finding(RETURNS_INT, got=str(ours.returned), expected=f"{theirs.returned}",
                            note="return order[\"id\"], not the order" if str(ours.returned).startswith("{") else None)
    if ours.returned != theirs.returned:
        return diff.Finding(RETURNS_ID, got=str(ours.returned), expected=str(theirs.returned),
                            note=f"the stored order's id is {theirs.returned}")
    return None


def _untouched(checkout: Checkout, ours: Seen, theirs: Seen) -> diff.Finding | None:
    for table in ("orders", "jobs", "dead_jobs", "customers"):
        mine, kept = _old(ours.state, table, checkout), _old(theirs.state, table, checkout)
        added = next((key for key in mine if key not in kept), None)
        if table == "customers" and added is not None:
            return diff.Finding(UNTOUCHED, got=f"customer {added[0]} added", expected="no new customer",
                                note="a checkout adds its order and its job, and changes nothing else")
        for key, row in kept.items():
            if key not in mine:
                return diff.Finding(UNTOUCHED, got=f"{table[:-1]} {key[0]} gone", expected="still there",
                                    note="a checkout adds its order and its job, and changes nothing else")
            column = _row_differs(mine[key], row)
            if column:
                return diff.Finding(UNTOUCHED, got=f"{table[:-1]} {key[0]}'s {column}: {_value(mine[key][column])}",
                                    expected=_value(row[column]), note="a checkout changes nothing it did not write" + (
                                        ": the customer's row is not the order's to change" if table == "customers"
                                        else ""))
    return None


# -- another session between its statements, and a kill between any two ---------------------------------------

RACE = Checkout(2, 1890)

HALF_DONE = """
SELECT (SELECT coalesce(array_agg(o.id ORDER BY o.id), '{}') FROM orders o WHERE o.id >= %(order)s
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.payload->>'order_id' = o.id::text)),
       (SELECT coalesce(array_agg((j.payload->>'order_id') ORDER BY j.id), '{}') FROM jobs j WHERE j.id >= %(job)s
          AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.id::text = j.payload->>'order_id'))"""


def _half_done(checkout: Checkout) -> Callable[[psycopg.Connection], tuple]:
    """Another session reads what is committed: orders with no receipt job, receipt jobs with no order."""
    def look(conn):
        jobless, orderless = conn.execute(HALF_DONE, {"order": FIRST_ORDER + checkout.orders,
                                                      "job": len(checkout.jobs) + 1}).fetchone()
        return tuple(jobless), tuple(orderless)
    return look


OTHER = (5, 777)  # the other customer's checkout: customer 5, 7.77


def _other_checkout(conn: psycopg.Connection) -> int:
    """Another customer's checkout, committed (the reference's)."""
    return reference(Checkout(*OTHER))(conn).value


def seen_half(t: Trial, runner: Runner) -> tuple[diff.Finding, str] | None:
    """Between each two of the answer's statements another session looks at what is committed, or another
    customer's checkout commits: nothing half done may show, and each order gets its own job."""
    arena = interleave.Arena(runner.box.conn, runner.box.connect, runner.reader, install, order_id)
    look = interleave.Act("another session read the orders and jobs", _half_done(RACE))
    other = interleave.Act(f"another customer's checkout committed (customer {OTHER[0]}, {OTHER[1]} cents)",
                           _other_checkout)
    learner = runner.learner(RACE)
    try:
        said = arena.count(learner, RACE)
        for point in range(2, len(said) + 1):
            got = arena.between(learner, RACE, other, point)
            if got is not None and (finding := _own_job(got)) is not None:
                return finding, (f"{RACE.told()}; just before your statement {point} ({got.statements[point - 1]}), "
                                 f"after your statement {point - 1} ({got.statements[point - 2]}): {other.told}")
            got = arena.between(learner, RACE, look, point)
            if got is None:
                continue
            jobless, orderless = got.others[0] if isinstance(got.others[0], tuple) else ((), ())
            if jobless or orderless:
                saw = (f"order {jobless[0]} with no receipt job" if jobless else
                       f"a receipt job for order {orderless[0]}, which does not exist")
                return diff.Finding(SEEN_HALF, got=f"it saw {saw}", expected="nothing half done: neither, or both",
                                    note=("your first write committed on its own: until the second one, the order is "
                                          "there without its job (or the job without its order), and a crash now leaves "
                                          "it so for good. Both in one transaction: with conn.transaction(): ...")), \
                    (f"{RACE.told()}; just before your statement {point} ({got.statements[point - 1]}), after your "
                     f"statement {point - 1} ({got.statements[point - 2]}): {look.told}")
    finally:
        arena.close()
    return None


def _own_job(got: diff.Outcome) -> diff.Finding | None:
    """Each new order has one receipt job naming it, and the answer returned its own order's id."""
    orders = _new(got.state, "orders", RACE)
    jobs = [j["payload"] for j in _new(got.state, "jobs", RACE).values() if j["type"] == "send_receipt"]
    mine = next((key[0] for key, row in orders.items() if (row["customer_id"], row["total_cents"]) == (2, 1890)), None)
    if mine is None:
        return None
    named = [p.get("order_id") if isinstance(p, dict) else None for p in jobs]
    if named.count(mine) != 1 or got.returned != mine:
        other = next((key[0] for key in orders if key[0] != mine), None)
        return diff.Finding(PAYLOAD if named.count(mine) != 1 else RETURNS_ID,
                            got=f"receipt jobs for orders {sorted(named, key=str)}, returned {got.returned}",
                            expected=f"one receipt job for your order {mine} (and one for {other}), returned {mine}",
                            note="another checkout committed between your statements, so the newest order was not "
                                 "yours: take your order's id from your own INSERT (RETURNING id, or what "
                                 "tiffin.place_order returns), not from the table")
    return None


def killed(t: Trial, runner: Runner) -> tuple[diff.Finding, str] | None:
    """The answer killed just before each of its statements after the first: what it leaves must be what the
    reference leaves killed at some point, nothing or both."""
    theirs = runner.run(RACE, reference(RACE))
    learner = runner.learner(RACE)
    steps = _killed_at(runner, learner, 0)[0]
    for point in range(2, len(steps) + 1):
        said, state = _killed_at(runner, learner, point)
        jobless, orderless = _half(state, theirs.state)
        if jobless or orderless:
            left = (f"order {jobless[0]}, and no receipt job for it" if jobless else
                    f"a receipt job for order {orderless[0]}, which does not exist")
            note = ("a paid order with no receipt job (the customer never gets a receipt)" if jobless else
                    "a receipt job for an order that does not exist")
            return diff.Finding(KILLED, got=left, expected="neither the order nor its job, or both", note=(
                f"{note}: the write before the kill had committed on its own. Both in one transaction")), \
                (f"{RACE.told()}; the process killed just before your statement {point} ({said[point - 1]}), "
                 f"after your statement {point - 1} ({said[point - 2]})")
    return None


def _killed_at(runner: Runner, learner: Callable, point: int) -> tuple[list[str], dict]:
    runner.reset(RACE)
    conn = runner.box.connect()
    kill = interleave.KillPoint(runner.watch, conn, point)
    try:
        with kill.watching():
            learner(conn)
    except interleave.Killed:
        pass
    finally:
        conn.close()
    return kill.steps, runner.reader.read(runner.watch)


def _half(state: dict, full: dict) -> tuple[list, list]:
    """New orders without the reference's job for them; new jobs for orders not stored."""
    orders = _new(state, "orders", RACE)
    jobs = _new(state, "jobs", RACE).values()
    for_orders = {j["payload"].get("order_id") for j in jobs if isinstance(j["payload"], dict)}
    jobless = [key[0] for key in orders if key[0] not in for_orders]
    orderless = [order for order in sorted(for_orders, key=str) if (order,) not in orders
                 and (order,) in _new(full, "orders", RACE)]
    return jobless, orderless


# -- the check ---------------------------------------------------------------------------------------------------------


@exercise_check("05.place_order")
def place_order_check(t: Trial, place_order, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    tiffin.install(box.conn)
    runner = Runner(t, box, place_order)
    verdicts = diff.Verdicts(t, CHECKS)

    def compare(checkout: Checkout) -> diff.Finding | None:
        return judge(checkout, runner.run(checkout, runner.learner(checkout)), runner.run(checkout, reference(checkout)))

    try:
        diff.search(verdicts, diff.in_turn(families()), compare, seed=t.seed, count=SCENARIOS)
        if compare(RACE) is None:  # the stages below build on an answer right on its own
            for stage in (seen_half, killed):
                found = stage(t, runner)
                if found is not None:
                    verdicts.add(*found)
    finally:
        runner.close()
    verdicts.report()

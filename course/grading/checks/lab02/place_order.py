"""02.place_order: the producer, judged against the reference (the solution: one transaction around
tiffin.place_order and queue.enqueue) on the same tables, for orders drawn from everything the statement
allows: any of the customers, orders the checkout refuses (no such customer, no items, a quantity of 0, a
negative price, a total of 0), several orders in one caller's transaction, every caller (autocommit, a
transaction that commits or is rolled back, autocommit off), tables holding other orders and jobs, and
three injected faults (the jobs table refuses the insert, the orders table does, the order's COMMIT
fails); then with another checkout committing an order and its job between the answer's statements.

What is free: the job's queue, priority and other columns, the order's id (the sequence's), and whether
the answer opens a transaction of its own inside the caller's (a savepoint).

One module, one exercise's check: the scenario in the learner's words, how it is drawn and shrunk, the run,
the reference and the judge only make sense together (the lab's package, lab02/__init__.py, registers it).
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
from course.grading.caller import CALLERS, ROLLED_BACK, run_as
from course.grading.snapshot import Reader
from course.grading.trial import Attempt, Trial, short

THALI = [{"name": "paneer thali", "quantity": 2, "price_cents": 1150}]


@dataclass(frozen=True)
class Odd:
    """A value that is not what the contract asks for, kept as it was shown."""
    shown: str

    def __str__(self) -> str:
        return self.shown


PLACE_SEED = 1
PLACE_SCENARIOS = 14  # two of each family below
RECEIPT = "send_receipt"
OTHER_CHECKOUT = 6  # a customer only another checkout orders for (the adversary's)
# Round f4 (po_w10): the other checkout orders for the SAME customer as the answer's call (one customer on two
# devices): an answer that reads its id back as "the customer's latest order" then names the other order. Its
# orders are told apart by their items, never by the customer.
OTHER_ITEMS = [{"name": "the other checkout's dosa", "quantity": 1, "price_cents": 1234}]
FAULTS = {None: "", "jobs": "while the jobs table refuses every insert",
          "orders": "while the orders table refuses every insert",
          "commit": "while the order's COMMIT fails (a deferred constraint)"}
FAULT_TRIGGERS = """
CREATE TABLE check_faults (fault text PRIMARY KEY);
CREATE FUNCTION check_refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF EXISTS (SELECT 1 FROM check_faults WHERE fault = TG_TABLE_NAME) THEN
        RAISE EXCEPTION 'injected: the insert into % failed', TG_TABLE_NAME; END IF;
    RETURN NEW; END $$;
CREATE FUNCTION check_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    IF EXISTS (SELECT 1 FROM check_faults WHERE fault = 'commit') THEN
        RAISE EXCEPTION 'injected: the transaction that wrote the order could not commit'; END IF;
    RETURN NULL; END $$;
CREATE TRIGGER check_refuse_insert BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION check_refuse_insert();
CREATE TRIGGER check_refuse_insert BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION check_refuse_insert();
CREATE CONSTRAINT TRIGGER check_refuse_commit AFTER INSERT ON orders DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION check_refuse_commit();
INSERT INTO customers (id, name, email, address) VALUES (6, 'Other Customer', 'other@example.com', '1 High Street');
"""


@dataclass(frozen=True)
class Call:
    customer: Any  # a customer's id, or something the checkout refuses
    items: Any  # a list of item dicts, or something the checkout refuses

    def told(self) -> str:
        return f"place_order_and_enqueue(conn, {self.customer!r}, {short(self.items)})"


@dataclass(frozen=True)
class Step:
    calls: tuple[Call, ...]
    caller: str = "autocommit"
    fault: str | None = None

    def told(self) -> str:
        where = f"{'; '.join(c.told() for c in self.calls)} {CALLERS[self.caller]}"
        return where + (f", {FAULTS[self.fault]}" if self.fault else "")


@dataclass(frozen=True)
class Checkout:
    orders: tuple[tuple[int, int], ...]  # (id, customer) of the orders already there
    jobs: tuple[tuple[int, str, Any], ...]  # (id, type, payload) of the jobs already there
    steps: tuple[Step, ...]

    def told(self) -> str:
        there = []
        if self.orders:
            there.append("orders " + ", ".join(f"{i} (customer {c})" for i, c in self.orders))
        if self.jobs:
            there.append("jobs " + ", ".join(f"{i} ({t} {short(p)})" for i, t, p in self.jobs))
        steps = "; then ".join(s.told() for s in self.steps)
        return ("; ".join(there) + " in the tables; then " if there else "") + steps

    def shrinks(self) -> Iterator["Checkout"]:
        for part in ("orders", "jobs"):
            rows = getattr(self, part)
            for index in range(len(rows)):
                yield replace(self, **{part: rows[:index] + rows[index + 1:]})
        for index in range(len(self.steps)):
            if len(self.steps) > 1:
                yield replace(self, steps=self.steps[:index] + self.steps[index + 1:])
        for index, step in enumerate(self.steps):
            simpler = [replace(step, calls=step.calls[:1]), replace(step, caller="autocommit"),
                       replace(step, fault=None), replace(step, caller="commits"),
                       replace(step, calls=tuple(replace(c, customer=1) for c in step.calls)),
                       replace(step, calls=tuple(replace(c, items=THALI) if _valid(c.items) else c
                                                 for c in step.calls))]
            for candidate in simpler:
                if candidate != step and _step_weight(candidate) < _step_weight(step):
                    yield replace(self, steps=self.steps[:index] + (candidate,) + self.steps[index + 1:])


def _step_weight(step: Step) -> tuple:
    return (len(step.calls), step.fault is not None, list(CALLERS).index(step.caller),
            sum(c.customer != 1 for c in step.calls), sum(c.items != THALI for c in step.calls))


def _valid(items) -> bool:
    try:
        tiffin.checked_items(items)
        return True
    except Exception:  # noqa: BLE001 (InvalidArgument: an order the checkout refuses)
        return False


def install_checkout(scene: Checkout) -> sql.Composable:
    parts = [sql.SQL("DELETE FROM check_faults")]
    if scene.orders:
        parts.append(sql.SQL("INSERT INTO orders (id, customer_id, items, total_cents) ") + diff.values(
            [[sql.Literal(i), sql.Literal(c), sql.Literal(Jsonb(THALI)), sql.Literal(2300)] for i, c in scene.orders]))
    if scene.jobs:
        parts.append(sql.SQL("INSERT INTO jobs (id, type, payload) ") + diff.values(
            [[sql.Literal(i), sql.Literal(t), sql.Literal(Jsonb(p))] for i, t, p in scene.jobs]))
    parts += [sql.SQL("SELECT setval(pg_get_serial_sequence({}, 'id'), coalesce(max(id), {}) + 1, false) FROM {}")
              .format(sql.Literal(table), sql.Literal(start), sql.Identifier(table))
              for table, start in (("orders", 9811), ("jobs", 0))]
    return sql.SQL("; ").join(parts)


ITEMS = ([{"name": "paneer thali", "quantity": 2, "price_cents": 1150}],
         [{"name": "dal makhani", "quantity": 1, "price_cents": 899},
          {"name": "naan", "quantity": 3, "price_cents": 250}],
         [{"name": "chai ☕ «masala»", "quantity": 12, "price_cents": 120}, {"name": "water", "quantity": 1,
                                                                              "price_cents": 0}],
         [{"name": "it's \"thali\"", "quantity": 1, "price_cents": 99999}, {"name": "raita", "quantity": 2,
                                                                          "price_cents": 1}])
REFUSED_ITEMS = ([], [{"name": "thali", "quantity": 0, "price_cents": 1150}],
                 [{"name": "water", "quantity": 2, "price_cents": 0}],  # a total of 0
                 [{"name": "thali", "quantity": 1, "price_cents": -5}], [{"name": "", "quantity": 1, "price_cents": 5}],
                 None)


# Items a bare INSERT INTO orders would store, and only the checkout's own checks refuse: an answer that
# writes the order itself instead of calling tiffin.place_order stores them (red team, issue 22).
CHECKOUT_ONLY_REFUSALS = ([{"name": "", "quantity": 1, "price_cents": 500}],
                          [{"name": "   ", "quantity": 2, "price_cents": 450}],
                          [{"name": "dal", "quantity": 2.5, "price_cents": 400}],
                          [{"name": "naan", "quantity": True, "price_cents": 250}])


# Customers the checkout refuses: none such, and (round f4, po_w4) a customer_id of another type than a whole
# number, which tiffin.place_order refuses too: an answer that converts it first (int("2") is customer 2)
# stores an order the checkout would refuse.
REFUSED_CUSTOMERS = (999, 0, -1, "2", 2.7, True)


def _call(rng: random.Random, refused: float = 0.0) -> Call:
    if rng.random() < refused:
        return rng.choice([Call(rng.choice(REFUSED_CUSTOMERS), list(rng.choice(ITEMS))),
                           Call(rng.randint(1, 5), rng.choice(REFUSED_ITEMS))])
    return Call(rng.randint(1, 5), list(rng.choice(ITEMS)))


def _checkout(rng: random.Random, steps: list[Step], *, busy: bool = False) -> Checkout:
    orders = tuple((9812 + n, rng.randint(1, 5)) for n in range(rng.randint(1, 4))) if busy else ()
    jobs = tuple((n + 1, rng.choice([RECEIPT, "send_invoice", "send_welcome_email"]),
                  rng.choice([{"order_id": o} for o, _ in orders] + [{"user_id": 7}, {}]))
                 for n in range(rng.randint(1, 4))) if busy else ()
    return Checkout(orders, jobs, tuple(steps))


def place_families() -> list[Callable[[random.Random], Checkout]]:
    def alone(rng):  # the notebook's call
        return _checkout(rng, [Step((_call(rng),))])

    def busy(rng):  # other orders and jobs, orders one after another
        return _checkout(rng, [Step((_call(rng),), rng.choice(list(CALLERS))) for _ in range(rng.randint(1, 3))],
                         busy=True)

    def refused(rng):  # orders the checkout refuses, beside good ones
        steps = [Step((_call(rng, refused=0.7),), rng.choice(["autocommit", "commits"]))
                 for _ in range(rng.randint(0, 2))]
        # and always a customer who does not exist, and an order only the checkout's own checks refuse (a bare
        # INSERT would store it), wherever they fall: every kind of refusal in every such scenario
        for call in (Call(rng.choice(REFUSED_CUSTOMERS), list(rng.choice(ITEMS))),
                     Call(rng.randint(1, 5), list(rng.choice(CHECKOUT_ONLY_REFUSALS)))):
            steps.insert(rng.randint(0, len(steps)), Step((call,), rng.choice(["autocommit", "commits"])))
        return _checkout(rng, steps, busy=rng.random() < 0.5)

    def jobs_fail(rng):  # in autocommit: only the answer's own transaction can hold the two writes together
        return _checkout(rng, [Step((_call(rng),), "autocommit", "jobs")], busy=rng.random() < 0.5)

    def orders_fail(rng):
        return _checkout(rng, [Step((_call(rng),), "autocommit", rng.choice(["orders", "commit"]))])

    def callers(rng):  # a caller's own transaction rolled back, one or two orders in it; then another caller
        steps = [Step(tuple(_call(rng) for _ in range(rng.randint(1, 2))), rng.choice(ROLLED_BACK))]
        steps += [Step((_call(rng),), rng.choice(list(CALLERS))) for _ in range(rng.randint(0, 1))]
        return _checkout(rng, steps, busy=rng.random() < 0.5)

    def basket(rng):  # two orders of one customer in one transaction, then another order
        first = _call(rng)
        again = replace(_call(rng), customer=first.customer)  # a regular orders twice: one receipt job each
        return _checkout(rng, [Step((first, again), rng.choice(["commits", "commit()", "rolls back"])),
                               Step((_call(rng),))])

    return [alone, busy, refused, jobs_fail, orders_fail, callers, basket]


@dataclass(frozen=True)
class Placed:
    """What the caller saw of one call, in its transaction, right after it: plain data, new orders labelled
    in the order they were made ("order A"), so two runs compare whatever ids their sequences gave."""
    raised: str | None = None
    returned: Any = None
    orders: tuple = ()  # (label, customer, status, items, total_cents) of each new order
    jobs: tuple = ()  # (type, payload with its order named by label) of each new job
    caller_failed: str | None = None


def _tables(cursor: psycopg.Cursor) -> tuple[dict, dict]:
    orders, jobs = cursor.execute(
        "SELECT (SELECT coalesce(json_agg(json_build_array(id, customer_id, status, items, total_cents)), '[]') "
        "FROM orders), (SELECT coalesce(json_agg(json_build_array(id, type, payload, unique_key)), '[]') "
        "FROM jobs)").fetchone()
    return {o[0]: tuple(o[1:]) for o in orders}, {j[0]: tuple(j[1:]) for j in jobs}


class Labels:
    """New orders' ids as "order A", "order B" ... in the order they appear; another checkout's as such."""

    def __init__(self, there: set):
        self.there, self.names = there, {}

    def __call__(self, order_id: Any, customer: int | None = None, items: Any = None) -> Any:
        if not isinstance(order_id, int) or isinstance(order_id, bool) or order_id in self.there:
            return order_id
        if customer == OTHER_CHECKOUT or items == OTHER_ITEMS:
            self.names.setdefault(order_id, "the other checkout's order")
        return self.names.setdefault(order_id, f"order {chr(ord('A') + len(self.names))}")

    def payload(self, payload: Any) -> Any:
        if isinstance(payload, dict) and "order_id" in payload:
            return {**payload, "order_id": self(payload["order_id"])}
        return payload


def _placed(before: tuple[int, int], after: tuple, done: Attempt, labels: Labels) -> Placed:
    """`before`: the largest order and job ids the caller had seen (a new row's id comes after them)."""
    orders = sorted((i, row) for i, row in after[0].items() if i > before[0])
    for i, row in orders:
        labels(i, row[0], row[2])
    new_orders = tuple((labels(i), *row) for i, row in orders if row[0] != OTHER_CHECKOUT and row[2] != OTHER_ITEMS)
    new_jobs = tuple((row[0], labels.payload(row[1])) for i, row in sorted(after[1].items())
                     if i > before[1] and row[2] != "another-checkout")
    if done.error is not None:
        return Placed(raised=done.error, orders=new_orders, jobs=new_jobs)
    value = done.value
    returned = labels(value) if isinstance(value, int) and not isinstance(value, bool) else Odd(short(value))
    return Placed(returned=returned, orders=new_orders, jobs=new_jobs)


def checkout_run(conn: psycopg.Connection, scene: Checkout, place: Callable, watch: psycopg.Connection,
                 labels: Labels) -> tuple:
    """Each step as its caller runs it, with its fault in place; what the caller saw of each call."""
    seen = []
    floor = [max((i for i, _ in scene.orders), default=9811), max((i for i, _, _ in scene.jobs), default=0)]
    for step in scene.steps:
        if step.fault:
            watch.execute("INSERT INTO check_faults VALUES (%s)", [step.fault])
        plain = psycopg.Cursor(conn)
        got: list[Placed] = []

        def work():
            for call in step.calls:
                before = tuple(floor)
                done = place(conn, call.customer, call.items)
                try:
                    after = _tables(plain)
                except psycopg.Error:  # the transaction failed under the answer: nothing to see inside it
                    got.append(_placed(before, ({}, {}), done, labels))
                    raise
                floor[:] = [max(after[0], default=floor[0]), max(after[1], default=floor[1])]
                got.append(_placed(before, after, done, labels))

        failed = run_as(conn, step.caller, work)
        if step.fault:
            watch.execute("DELETE FROM check_faults")
        if failed:
            got = got[:-1] + [replace(got[-1], caller_failed=failed)] if got else [Placed(caller_failed=failed)]
        seen.append(tuple(got))
    return tuple(seen)


def reference_place(conn, customer_id, items):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        queue.enqueue(conn, RECEIPT, {"order_id": order["id"]})
    return order["id"]


RETURNS = "returns the new order's id (an int)"
STORES = "stores the order with tiffin.place_order: the customer and the items as given"
REFUSED = "an order the checkout refuses raises, and leaves no order and no job"
ONE_JOB = "stores exactly one job, and changes nothing else"
TYPE = "the job's type is 'send_receipt'"
PAYLOAD = "the job carries the order's id and nothing else (ids, not data)"
ONE_TXN = "when the job cannot be stored, the order is not stored either (one transaction)"
HEARS = "and the failure reaches the caller (the customer is not told 'order placed')"
NO_ORPHAN = "when the order cannot be stored or committed, no job is left behind"
GIVEN = "uses the connection it is given (the caller's rollback takes the order and its job away)"
PLACE_CHECKS = (RETURNS, STORES, REFUSED, ONE_JOB, TYPE, PAYLOAD, ONE_TXN, HEARS, NO_ORPHAN, GIVEN)
OWN_TRANSACTION = ("open no connection of your own, and leave the caller's transaction to the caller: no "
                   "commit(), no rollback(), no autocommit change (`with conn.transaction():` is yours to use: "
                   "inside the caller's it is a savepoint)")


class PlaceJudge:
    def __init__(self, t: Trial, box, reader: Reader, answer: Callable):
        self.t, self.box, self.reader, self.answer = t, box, reader, answer
        self.watch = box.connect()

    def learner(self, scene: Checkout, labels: Labels) -> Callable[[psycopg.Connection], Attempt]:
        place = lambda c, customer, items: self.t.attempt(self.answer, c, customer, items)  # noqa: E731
        return lambda conn: Attempt(value=checkout_run(conn, scene, place, self.watch, labels))

    def reference(self, scene: Checkout, labels: Labels) -> Callable[[psycopg.Connection], Attempt]:
        def place(conn, customer, items):
            try:
                return Attempt(value=reference_place(conn, customer, items))
            except Exception as error:  # noqa: BLE001 (a refused order, an injected fault: what the caller hears)
                return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)
        return lambda conn: Attempt(value=checkout_run(conn, scene, place, self.watch, labels))

    def run(self, scene: Checkout, side) -> diff.Outcome:
        self.watch.execute(sql.SQL("; ").join([*(sql.SQL("DELETE FROM {}").format(sql.Identifier(t.name))
                                                 for t in self.reader.tables), install_checkout(scene)]))
        labels = Labels({i for i, _ in scene.orders})
        done = side(scene, labels)(self.box.conn)
        return diff.Outcome(returned=(done.value, labels), state=self.reader.read(self.watch))

    def compare(self, scene: Checkout) -> diff.Finding | None:
        return self.judge(scene, self.run(scene, self.learner), [self.run(scene, self.reference)])

    def judge(self, scene, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
        return diff.against(ours, allowed, lambda theirs: self._against(scene, ours, theirs))

    def _against(self, scene: Checkout, ours: diff.Outcome, theirs: diff.Outcome) -> diff.Finding | None:
        for step, mine_step, ref_step in zip(scene.steps, ours.returned[0], theirs.returned[0]):
            for call, mine, ref in zip(step.calls, mine_step, ref_step):
                found = self._call(scene, step, call, mine, ref)
                if found:
                    return found
            if len(mine_step) < len(ref_step):  # the caller failed before its next call
                return diff.Finding(GIVEN, got=f"the caller failed: {mine_step[-1].caller_failed}",
                                    expected="every order of the caller's transaction placed", note=OWN_TRANSACTION)
        return self._committed(scene, ours, theirs)

    def _call(self, scene, step: Step, call: Call, mine: Placed, ref: Placed) -> diff.Finding | None:
        said = call.told() + (f" {FAULTS[step.fault]}" if step.fault else "")
        if mine.raised and not ref.raised:
            if step.caller != "autocommit" and self._calm_in_autocommit(scene):
                return diff.Finding(GIVEN, got=f"{said} raised an exception", expected="the order placed in the "
                                    "caller's transaction", note=f"your code raised {mine.raised}\nIt raised only "
                                    "inside the caller's transaction: " + OWN_TRANSACTION)
            return diff.Finding(RETURNS, got=f"{said} raised an exception", expected="the new order's id",
                                note=f"your code raised {mine.raised}")
        if ref.raised and not mine.raised:
            if not step.fault:
                return diff.Finding(REFUSED, got=f"{said} returned {mine.returned}", expected=f"it raises "
                                    f"({ref.raised})", note="pass the customer_id to tiffin.place_order as given: it "
                                    "refuses one that is not a whole number, and converting it first stores an order "
                                    "the checkout refuses" if any(type(c.customer) is not int for c in step.calls)
                                    else "let the checkout's refusal reach the caller: catching it "
                                    "tells the customer the order went through")
            if mine.orders and step.fault == "jobs":
                return self._two_writes(said, mine)
            return diff.Finding(HEARS, got=f"{said} returned {mine.returned}", expected="an exception",
                                note="let the exception through: catching it tells the caller all went well")
        if ref.raised:  # both raised: what is left inside the caller's transaction must be what the reference left
            if mine.orders and not ref.orders and step.fault == "jobs":
                return self._two_writes(said, mine)
            if mine.jobs and not ref.jobs:
                check = NO_ORPHAN if step.fault else REFUSED
                return diff.Finding(check, got=f"{said}: {len(mine.jobs)} job(s) stored", expected="no job",
                                    note=f"a job for an order that does not exist: write the order first, in the "
                                         f"job's transaction")
            if mine.orders and not ref.orders:
                return diff.Finding(REFUSED, got=f"{said}: order(s) stored {list(mine.orders)}", expected="no order")
            return None
        if isinstance(mine.returned, Odd):
            return diff.Finding(RETURNS, got=f"{said} returned {mine.returned}", expected="the new order's id, an int "
                                "(tiffin.place_order's dict has it: order[\"id\"])")
        if [o[1:] for o in mine.orders] != [o[1:] for o in ref.orders]:
            return diff.Finding(STORES, got=f"{said} stored {_orders_said(mine.orders)}",
                                expected=_orders_said(ref.orders),
                                note="tiffin.place_order(conn, customer_id, items=items) checks and stores it")
        if len(mine.jobs) != len(ref.jobs):
            return diff.Finding(ONE_JOB, got=f"{said} stored {len(mine.jobs)} job(s): {short(mine.jobs)}",
                                expected=f"1 job: {short(ref.jobs)}", note="one order, one receipt job")
        for (mine_type, mine_payload), (ref_type, ref_payload) in zip(mine.jobs, ref.jobs):
            if mine_type != ref_type:
                return diff.Finding(TYPE, got=mine_type, expected=ref_type, note=f"after {said}")
            if mine_payload != ref_payload:
                other = mine_payload.get("order_id") == "the other checkout's order" if isinstance(
                    mine_payload, dict) else False
                return diff.Finding(PAYLOAD, got=mine_payload, expected=ref_payload, note=(
                    f"after {said}: " + ("your job names the order another checkout committed between your "
                                         "statements: take the id from the order tiffin.place_order returned"
                                         if other else "the worker reads the customer, the address and the items "
                                                       "when it runs")))
        if mine.returned != ref.returned:
            return diff.Finding(RETURNS, got=f"{said} returned {short(mine.returned)}",
                                expected=f"{ref.returned}'s id", note="return the id of the order it stored")
        if mine.caller_failed and not ref.caller_failed:
            return diff.Finding(GIVEN, got=f"the caller's COMMIT after {said} failed: {mine.caller_failed}",
                                expected="the caller commits the order and its job", note=OWN_TRANSACTION)
        return None

    @staticmethod
    def _two_writes(said: str, mine: Placed) -> diff.Finding:
        return diff.Finding(ONE_TXN, got=f"{said}: {len(mine.orders)} order(s) stored", expected="0 orders stored",
                            note="an order without its job is a customer who paid and never gets a receipt: store "
                                 "both in one transaction (with conn.transaction(): ...), on the connection you are "
                                 "given")

    def _committed(self, scene: Checkout, ours: diff.Outcome, theirs: diff.Outcome) -> diff.Finding | None:
        mine, ref = _final(ours, scene), _final(theirs, scene)
        if mine == ref:
            return None
        faulty = [s for s in scene.steps if s.fault in ("commit", "orders")]
        if faulty and len(mine[1]) > len(ref[1]) and mine[0] == ref[0]:
            return diff.Finding(NO_ORPHAN, got=f"committed at the end: {len(mine[1])} job(s) {short(mine[1])}",
                                expected=f"{len(ref[1])} job(s)", note="jobs written on another connection, or "
                                "committed before the order, survive its failure: one transaction, on the "
                                "connection you are given")
        if mine[2] != ref[2]:
            return diff.Finding(ONE_JOB, got="rows that were there before were changed or deleted",
                                expected="the orders and jobs already there left as they were")
        rolled = [s for s in scene.steps if s.caller in ROLLED_BACK]
        return diff.Finding(GIVEN, got=f"committed at the end: {_orders_said(mine[0])}; jobs {short(mine[1])}",
                            expected=f"{_orders_said(ref[0])}; jobs {short(ref[1])}", note=(
                                "a caller's transaction was rolled back, and what it placed must go with it: " if rolled
                                else "") + OWN_TRANSACTION)

    def _calm_in_autocommit(self, scene: Checkout) -> bool:
        plain = replace(scene, steps=tuple(replace(s, caller="autocommit") for s in scene.steps))
        return not any(p.raised for step in self.run(plain, self.learner).returned[0] for p in step)

    def close(self) -> None:
        self.watch.close()


def _orders_said(orders: tuple) -> str:
    if not orders:
        return "no order"
    return ", ".join(f"{o[0]} (customer {o[1]}, {short(o[3])}, {o[4]} cents)" for o in orders)


def _final(outcome: diff.Outcome, scene: Checkout) -> tuple:
    """What is committed: the new orders and jobs (labelled), and the rows that were there."""
    labels: Labels = outcome.returned[1]
    state, jobs_there = outcome.state, {i for i, _, _ in scene.jobs}
    for key, row in sorted(state["orders"].items()):
        labels(key[0], row["customer_id"], row["items"])
    new_orders = tuple(sorted(((labels(k[0]), r["customer_id"], r["status"], r["items"], r["total_cents"])
                               for k, r in state["orders"].items() if k[0] not in labels.there
                               and r["customer_id"] != OTHER_CHECKOUT and r["items"] != OTHER_ITEMS), key=repr))
    new_jobs = tuple(sorted(((r["type"], labels.payload(r["payload"])) for k, r in state["jobs"].items()
                             if k[0] not in jobs_there and r["unique_key"] != "another-checkout"), key=repr))
    there = (tuple(sorted((k[0], r["customer_id"], r["items"]) for k, r in state["orders"].items()
                          if k[0] in labels.there)),
             tuple(sorted((k[0], r["type"], r["payload"]) for k, r in state["jobs"].items() if k[0] in jobs_there)))
    return new_orders, new_jobs, there


def _other_checkout(conn: psycopg.Connection) -> str:
    with conn.transaction():
        order = tiffin.place_order(conn, PLACE_RACE.steps[0].calls[0].customer, items=OTHER_ITEMS)
        queue.enqueue(conn, RECEIPT, {"order_id": order["id"]}, unique_key="another-checkout")
    return "committed"


def _kitchen_looks(conn: psycopg.Connection) -> dict:
    """Another session reads what is committed: paid orders that no receipt job names. Round f3 (po_w02): an
    answer that commits the order, then the job in a second transaction (deleting the order if the job fails)
    ends in the reference's state, but between its two commits an order without its job is there for anyone
    to see, and a crash there leaves it for good."""
    (count,) = conn.execute("SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT FROM jobs j "
                            "WHERE j.payload->>'order_id' = o.id::text)").fetchone()
    return {"orders committed without their receipt job": count}


PLACE_RACE = Checkout((), (), (Step((Call(1, THALI),)),))


def place_race(judge: PlaceJudge) -> tuple[diff.Finding, interleave.Told] | None:
    if judge.compare(PLACE_RACE) is not None:
        return None
    act = interleave.Act("another checkout committed an order of the same customer (customer 1, on another device) "
                         "and its receipt job", _other_checkout)
    looks = interleave.Act("another session (the kitchen) looked for committed orders without their receipt job",
                           _kitchen_looks)
    arena = interleave.Arena(judge.box.conn, judge.box.connect, judge.reader, install_checkout, lambda value: value)
    def side(make):
        def run(conn):
            labels = Labels(set())  # one per run: an outcome keeps its own
            done = make(PLACE_RACE, labels)(conn)
            return Attempt(value=(done.value, labels))
        return run
    try:
        return interleave.explore(arena, PLACE_RACE, answer=side(judge.learner), reference=side(judge.reference),
                                  acts=[(act, act), (looks, looks)], holds=[], judge=_race_judge(judge))
    finally:
        arena.close()


def _race_judge(judge: PlaceJudge) -> Callable:
    """The judge, and first what the kitchen saw: never an order without its job, before or after the
    reference's one transaction."""
    def orphans(outcome: diff.Outcome) -> int:
        return sum(seen.get("orders committed without their receipt job", 0) for seen in outcome.others
                   if isinstance(seen, dict))

    def race(scene, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
        if orphans(ours) and not any(orphans(theirs) for theirs in allowed):
            return diff.Finding(ONE_TXN, got=f"another session saw {orphans(ours)} committed order(s) without a "
                                "receipt job", expected="never an order without its job", note=(
                                    "your order was committed before its job was: anyone reading then (the "
                                    "kitchen, a report) sees a paid order whose receipt no job will send, and a "
                                    "crash right there keeps it so for good (a compensating DELETE never runs). "
                                    "Both writes in one transaction: with conn.transaction(): ..."))
        return judge.judge(scene, ours, allowed)
    return race


def place_order_check(t: Trial, place_order_and_enqueue, seed=None):
    t.seed = PLACE_SEED if seed is None else seed
    box = t.scratch()
    tiffin.install(box.conn)
    box.conn.execute(FAULT_TRIGGERS)
    reader = Reader.of(box.conn, only=("orders", "jobs", "dead_jobs"))
    judge = PlaceJudge(t, box, reader, place_order_and_enqueue)
    verdicts = diff.Verdicts(t, PLACE_CHECKS)
    try:
        diff.search(verdicts, diff.in_turn(place_families()), judge.compare, seed=t.seed, count=PLACE_SCENARIOS)
        found = place_race(judge)
        if found is not None:
            verdicts.add(found[0], str(found[1]))
    finally:
        judge.close()
    verdicts.report()



"""05.cancel_order's scenarios, in the learner's words: the orders and their statuses, the outbox's earlier rows,
a write the database refuses, a caller that rolls back; how they are drawn and written."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import outbox

from course.grading import differential as diff
from course.grading.snapshot import in_words
from course.grading.checks.shared import REFUSE_COMMIT, REFUSE_INSERTS


FIRST_ORDER = 9812
PLACED = "lab05_orders.placed"
STATUSES = ("placed", "preparing", "on_its_way", "delivered", "cancelled")


# -- a cancellation, in the learner's words ------------------------------------------------------------------


@dataclass(frozen=True)
class Cancel:
    """A scenario: the orders stored (their statuses, from 9812 on), which one is cancelled (an index; one past
    the last is an order that does not exist), the outbox rows stored already, and what goes wrong."""
    orders: tuple[str, ...] = ("placed",)
    target: int = 0
    announced: int = 0  # outbox rows already there: "order placed" for the first orders; every other one sent
    fault: str | None = None  # "outbox refused", "update refused", "commit refused"
    caller: str = "autocommit"  # "rolls back": called inside the caller's transaction, which then rolls back;
    # "commits": the caller (BEGIN) places an order of its own first, calls, catches any failure and commits
    again: bool = False  # the same call made a second time right after (the customer clicks twice)
    first: int = FIRST_ORDER  # the first order's id (order numbers far from the demo's, and past 2^31, too)
    age: float = 600.0  # the orders were placed this long ago (seconds)
    receipts: bool = False  # each order's send_receipt job queued (jobs 1, 2, ...: {"order_id": <its id>})

    @property
    def callers_order(self) -> int:
        """The order the caller places in its own transaction before it calls ("commits")."""
        return self.first + len(self.orders) + 1  # never the order to cancel, which may be one past the last

    @property
    def order_id(self) -> int:
        return self.first + self.target

    def told(self) -> str:
        stored = ", ".join(f"{self.first + n} ({status})" for n, status in enumerate(self.orders))
        parts = [f"orders {stored}" if self.orders else "no orders"]
        if self.orders and self.age != 600.0:
            parts[0] += f", placed {in_words(-self.age)}"
        if self.orders and self.receipts:
            parts.append(f"jobs 1-{len(self.orders)}: each order's send_receipt, queued" if len(self.orders) > 1
                         else "job 1: the order's send_receipt, queued")
        if self.announced:
            parts.append(f"outbox rows 1-{self.announced} (orders placed; the odd ones sent)" if self.announced > 1
                         else "outbox row 1 (an order placed, sent)")
        call = f"cancel_order(conn, {self.order_id})"
        if self.target >= len(self.orders):
            call += f" (there is no order {self.order_id})"
        if self.again:
            call += ", then the same call again (the customer clicks twice)"
        told = "; ".join(parts + [call])
        told += {None: "", "outbox refused": "; every INSERT INTO outbox fails (an injected failure)",
                 "update refused": "; every UPDATE of orders fails (an injected failure)",
                 "commit refused": "; the outbox row cannot commit (a deferred constraint on outbox fails)"}[self.fault]
        if self.caller == "rolls back":
            told = f"inside the caller's transaction ({told}), which the caller then rolls back"
        elif self.caller == "commits":
            told = (f"inside the caller's transaction, after the caller placed order {self.callers_order} in it "
                    f"({told}); the caller catches any failure of yours and commits")
        return told

    def shrinks(self) -> Iterator["Cancel"]:
        if len(self.orders) > 1:
            kept = self.orders[self.target:self.target + 1] or ()
            yield replace(self, orders=kept, target=0 if kept else 0, announced=min(self.announced, len(kept)))
        if self.announced:
            yield replace(self, announced=0)
        if self.caller != "autocommit":
            yield replace(self, caller="autocommit")
        if self.fault:
            yield replace(self, fault=None)
        if self.again:
            yield replace(self, again=False)
        if self.first != FIRST_ORDER:
            yield replace(self, first=FIRST_ORDER)
        if self.age != 600.0:
            yield replace(self, age=600.0)
        if self.receipts:
            yield replace(self, receipts=False)


def install(cancel: Cancel) -> sql.Composable:
    """The orders, their jobs and outbox rows, with the sequences where they stand (both runs take the same
    ids, and a job the answer queues takes the next one, as it would in the shop)."""
    jobs = len(cancel.orders) if cancel.receipts else 0
    parts = [sql.SQL("SELECT setval(pg_get_serial_sequence('orders', 'id'), {}, false), "
                     "setval(pg_get_serial_sequence('outbox', 'id'), {}, false), "
                     "setval(pg_get_serial_sequence('jobs', 'id'), {}, false)").format(
        sql.Literal(cancel.first + len(cancel.orders)), sql.Literal(cancel.announced + 1), sql.Literal(jobs + 1))]
    if cancel.orders:
        parts.append(sql.SQL("INSERT INTO orders (id, customer_id, status, items, total_cents, created_at) ") +
                     diff.values([[sql.Literal(cancel.first + n), sql.Literal(1 + n % 2), sql.Literal(status),
                                   sql.Literal(Jsonb(_items(n))), sql.Literal(1000 + 10 * n), diff.from_now(-cancel.age + n)]
                                  for n, status in enumerate(cancel.orders)]))
    if cancel.orders and cancel.receipts:
        parts.append(sql.SQL("INSERT INTO jobs (id, type, payload, run_at, due_at) ") + diff.values(
            [[sql.Literal(n + 1), sql.Literal("send_receipt"), sql.Literal(Jsonb({"order_id": cancel.first + n})),
              diff.from_now(-cancel.age + n), diff.from_now(-cancel.age + n)] for n in range(len(cancel.orders))]))
    if cancel.announced:
        parts.append(sql.SQL("INSERT INTO outbox (id, event_id, subject, payload, created_at, sent_at) "
                             "OVERRIDING SYSTEM VALUE ") + diff.values(
            [[sql.Literal(n), sql.Literal(f"00000000-0000-4000-8000-{n:012d}"), sql.Literal(PLACED),
              sql.Literal(Jsonb({"order_id": cancel.first + n - 1})), diff.from_now(-600.0 + n),
              diff.from_now(-500.0 + n) if n % 2 else sql.NULL] for n in range(1, cancel.announced + 1)]))
    return sql.SQL("; ").join(parts)


def _items(n: int) -> list[dict]:
    """What the order holds: never empty, so that an answer that clears (or rewrites) it beside the status shows."""
    return [{"name": "thali", "quantity": 1, "price_cents": 1000 + 10 * n}]


REFUSE_UPDATES = """
CREATE OR REPLACE FUNCTION rules_refuse_update() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'injected: the update of % failed', TG_TABLE_NAME; END $$;
CREATE TRIGGER rules_refuse_update BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION rules_refuse_update();
"""
NO_FAULTS = ("DROP TRIGGER IF EXISTS rules_refuse_insert ON outbox; DROP TRIGGER IF EXISTS rules_refuse_update ON orders; "
             "DROP TRIGGER IF EXISTS rules_refuse_commit ON outbox")


def _fault(cancel: Cancel) -> str:
    return {None: "", "outbox refused": REFUSE_INSERTS.format(table="outbox"), "update refused": REFUSE_UPDATES,
            "commit refused": REFUSE_COMMIT.format(table="outbox")}[cancel.fault]


# -- drawing cancellations ----------------------------------------------------------------------------------------


def _orders(rng: random.Random, target_status: str) -> tuple[tuple[str, ...], int]:
    """Some orders, the customer's others placed too, with the one to cancel somewhere among them."""
    others = [rng.choice(STATUSES) for _ in range(rng.choice([0, 1, 2, 4]))]
    target = rng.randint(0, len(others))
    return tuple(others[:target] + [target_status] + others[target:]), target


def families() -> list[Callable[[random.Random], Cancel]]:
    def placed(rng):
        orders, target = _orders(rng, "placed")
        return Cancel(orders, target, rng.choice([0, 1, 3]))

    def too_late(rng):  # the kitchen has started it, or it went further, or it is cancelled already, or gone
        if rng.random() < 0.2:
            orders, _ = _orders(rng, "placed")
            return Cancel(orders, len(orders), rng.choice([0, 2]))
        orders, target = _orders(rng, rng.choice(STATUSES[1:]))
        return Cancel(orders, target, rng.choice([0, 1, 3]))

    def busy(rng):  # every other order placed as well, outbox rows waiting
        orders, target = _orders(rng, rng.choice(["placed", "placed", "preparing"]))
        return Cancel(tuple("placed" if n != target and n % 2 else s for n, s in enumerate(orders)) + ("placed",),
                      target, len(orders))

    def refused(rng):  # a write that fails: the outbox row's insert, the order's update, or the commit
        orders, target = _orders(rng, "placed")
        return Cancel(orders, target, rng.choice([0, 2]),
                      fault=rng.choice(["outbox refused", "update refused", "commit refused"]))

    def caller(rng):  # called inside the caller's transaction, which then rolls back, or which wrote first and
        # commits whatever became of the call (a failure caught), a write refused or not
        orders, target = _orders(rng, rng.choice(["placed", "placed", "delivered"]))
        if rng.random() < 0.5:
            return Cancel(orders, target, rng.choice([0, 1]), caller="rolls back")
        fault = rng.choice([None, "outbox refused", "update refused", "commit refused"])  # as `refused` draws them:
        return Cancel(orders, target, rng.choice([0, 1]), caller="commits",  # on an order still placed
                      fault=fault if orders[target] == "placed" else None)

    def twice(rng):  # the customer clicks "cancel" twice: one cancellation, one outbox row
        orders, target = _orders(rng, rng.choice(["placed", "placed", "preparing"]))
        return Cancel(orders, target, rng.choice([0, 2]), again=True)

    def numbered(family):  # the demo's order numbers, or others far from them; orders placed moments to days ago
        return lambda rng: replace(family(rng), first=_first(rng), age=rng.choice(AGES),
                                       receipts=rng.random() < 0.4)

    return [numbered(family) for family in (placed, too_late, busy, refused, caller, twice)]


def _first(rng: random.Random) -> int:
    return FIRST_ORDER if rng.random() < 0.4 else rng.choice([rng.randint(10_000, 2_000_000_000),
                                                              rng.randint(2**31 - 3, 2**31 + 5), 5_000_000_000])


AGES = (5.0, 600.0, 600.0, 2 * 3600.0, 3 * 86400.0)  # how long ago the orders were placed


# Tried on every run, whatever the seed: an order of each status alone, one that does not exist, and the order
# to cancel with its own "placed" announcement still unsent (row 2: the relay has not sent it yet).
FIRST = (*(Cancel((status,)) for status in STATUSES), Cancel((), 0), Cancel(("placed", "placed"), 1, 2))

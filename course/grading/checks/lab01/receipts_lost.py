"""01.receipts_lost: which orders have no receipt: orders (the database) against deliveries (the provider).

One module, one exercise's check (the lab's package, lab01/__init__.py, imports it so that it registers).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from psycopg import sql

from course.programs import tiffin
from course.programs.email_provider import Delivery

from course.grading import differential as diff
from course.grading.snapshot import Reader, mismatches
from course.grading.trial import Attempt, Trial, short
from course.grading.checks import exercise_check

# -- 01.receipts_lost: the orders (the database) against the deliveries (the provider) -----------------------
#
# The learner's receipts_lost and the reference (the solution's function) run on the same orders table and
# deliveries, drawn from everything the statement allows: customers with several orders, orders inserted out
# of id order and with every status, order numbers that are pieces of one another (981, 9812, 98120),
# receipts delivered twice, receipts for orders not in the table, emails that are not receipts (some naming
# an order: "Your Tiffin order #9813 is on its way"), more orders than a page or than any "recent" LIMIT 500,
# orders minutes, days or months old, and receipts sent to an address the customer has since changed
# (round f3: each of these three let an answer pass that ignored it). It only reads, so no other session acts
# between its statements.

RECEIPTS_SEED = 1  # the scenarios `check("01.receipts_lost")` draws unless given another seed
RECEIPT_SCENARIOS = 32
ELSEWHERE = "someone@elsewhere.example"  # an address no customer has (an experiment's)
NAMES = {n: email for n, (_, email, _) in enumerate(tiffin.SEED_CUSTOMERS, start=1)}  # 1: ana@example.com
STATUSES = ("placed", "preparing", "on_its_way", "delivered", "cancelled")
NOT_RECEIPTS = ("Your Tiffin order #{n} is on its way", "Rate your Tiffin order #{n}", "Refund for order #{n}",
                "Tiffin newsletter #{n}", "Tiffin: 20% off your next thali this weekend", "Welcome to Tiffin!")


def email_of(customer: int) -> str:
    return NAMES.get(customer, f"guest{customer}@example.com")


def former_email_of(customer: int) -> str:
    """The address the customer had when an earlier receipt was sent: they have changed it since."""
    local, _, domain = email_of(customer).partition("@")
    return f"{local}.old@{domain}"


HOUR, DAY = 3600.0, 86400.0


def _age(seconds: float) -> str:
    for unit, size in (("days", DAY), ("hours", HOUR), ("minutes", 60.0)):
        if seconds >= 2 * size:
            return f"{int(seconds // size)} {unit} old"
    return "just placed"


@dataclass(frozen=True)
class Order:
    id: int
    customer: int = 1
    status: str = "placed"
    age_s: float = 60.0  # how long ago it was placed (created_at = now() - age_s)

    def told(self) -> str:
        status = "" if self.status == "placed" else f", {self.status}"
        age = f", {_age(self.age_s)}" if self.age_s >= HOUR else ""
        return f"{self.id} ({email_of(self.customer).split('@')[0].capitalize()}{status}{age})"


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str

    def told(self) -> str:
        former = ".old@" in self.to
        return f"{self.subject!r} to {self.to}" + (" (an address its customer has changed since)" if former else "")


def receipt(order_id: int, to: str) -> Mail:
    return Mail(to, tiffin.SUBJECT.format(order_id=order_id))


@dataclass(frozen=True)
class Lost:
    """A scenario: the orders table, as inserted (in this order), and the provider's deliveries."""
    orders: tuple[Order, ...]
    mails: tuple[Mail, ...]

    def told(self) -> str:
        if len(self.orders) > BIG:  # a table too long to list: what matters about it
            ids = sorted(o.id for o in self.orders)
            return (f"{len(self.orders)} orders, ids {ids[0]} to {ids[-1]}, the oldest "
                    f"{_age(max(o.age_s for o in self.orders))}; {len(self.mails)} deliveries, receipts for all but "
                    f"{len(reference_ids(self))} of them; receipts_lost(conn, deliveries)")
        orders = ("no orders" if not self.orders else "orders " + ", ".join(o.told() for o in self.orders)
                  + (" (inserted in that order)" if [o.id for o in self.orders] != sorted(o.id for o in self.orders)
                     else ""))
        mails = ("no deliveries" if not self.mails else "deliveries: " + "; ".join(m.told() for m in self.mails))
        return f"{orders}; {mails}; receipts_lost(conn, deliveries)"

    def deliveries(self) -> list[Delivery]:
        return [Delivery(id=f"msg_{n:06d}", to=m.to, subject=m.subject, body=f"{m.subject}\n\nTiffin",
                         idempotency_key=None, at=1_760_000_000.0 + n) for n, m in enumerate(self.mails, start=1)]

    def shrinks(self) -> Iterator["Lost"]:
        for part in ("mails", "orders"):
            rows = getattr(self, part)
            size = max(1, len(rows) // 2) if rows else 0
            while size >= 1:
                for start in range(0, len(rows), size):
                    yield replace(self, **{part: rows[:start] + rows[start + size:]})
                size //= 2
        if any(o.age_s != 60.0 for o in self.orders):
            yield replace(self, orders=tuple(replace(o, age_s=60.0) for o in self.orders))
        for index, order in enumerate(self.orders):
            if order.status != "placed":
                yield replace(self, orders=self.orders[:index] + (replace(order, status="placed"),)
                              + self.orders[index + 1:])
        if [o.id for o in self.orders] != sorted(o.id for o in self.orders):
            yield replace(self, orders=tuple(sorted(self.orders, key=lambda o: o.id)))


def install_orders(scene: Lost) -> sql.Composable:
    customers = sorted({o.customer for o in scene.orders if o.customer not in NAMES})
    parts = [sql.SQL("INSERT INTO customers (id, name, email, address) VALUES ({}, 'Guest', {}, '1 High Street')")
             .format(sql.Literal(c), sql.Literal(email_of(c))) for c in customers]
    if scene.orders:
        columns = [[o.id for o in scene.orders], [o.customer for o in scene.orders],
                   [o.status for o in scene.orders], [1000 + o.id % 97 for o in scene.orders],
                   [float(o.age_s) for o in scene.orders]]  # as arrays: a table of 1,000 orders is 5 literals
        parts.append(sql.SQL("INSERT INTO orders (id, customer_id, status, total_cents, created_at) "
                             "SELECT id, customer, status, total, now() - make_interval(secs => age) "
                             "FROM unnest({}::int[], {}::int[], {}::text[], {}::int[], {}::float8[]) "
                             "AS o (id, customer, status, total, age)").format(*map(sql.Literal, columns)))
    return sql.SQL("; ").join(parts) if parts else sql.SQL("SELECT")


def _ids(rng: random.Random, count: int, related: bool = False) -> list[int]:
    """Order numbers: from 9812 with gaps; with `related`, numbers that are pieces of one another."""
    if related:
        base = rng.choice([981, 9812, 9813, 1234])
        pool = {base, base * 10, base * 10 + rng.randint(0, 9), int(f"1{base}"), base // 10, base + 1, base * 100}
        return rng.sample(sorted(pool), min(count, len(pool)))
    return rng.sample(range(9812, 9812 + 3 * count + 3), count)


def _draw_age(rng: random.Random) -> float:
    """How long ago an order was placed: minutes, hours, days or months (an answer that looks only at recent
    orders, created_at > now() - interval '1 hour', leaves the older ones out)."""
    return rng.choice([rng.uniform(5, 1800), rng.uniform(2 * HOUR, 20 * HOUR), rng.uniform(2 * DAY, 300 * DAY)])


def _lost(rng: random.Random, ids: list[int], *, customers: list[int], delivered: float, noise: int = 0,
          statuses: bool = False, moved: float = 0.2) -> Lost:
    orders = [Order(i, rng.choice(customers), rng.choice(STATUSES) if statuses else "placed", _draw_age(rng))
              for i in ids]
    # A receipt goes to the address the customer had then: some have changed it since.
    mails = [receipt(o.id, former_email_of(o.customer) if rng.random() < moved else email_of(o.customer))
             for o in orders if rng.random() < delivered]
    for _ in range(noise):
        n = rng.choice(ids) if ids and rng.random() < 0.7 else rng.randint(1, 99999)
        kind = rng.choice(["twice", "stray", "other", "other"])
        if kind == "twice" and mails:
            mails.append(rng.choice(mails))
        elif kind == "stray":
            mails.append(receipt(rng.choice([n * 10, n * 10 + 3, int(f"1{n}"), n // 10 or 7, n + 10000]),
                                 email_of(rng.choice(customers))))
        else:
            mails.append(Mail(email_of(rng.choice(customers)), rng.choice(NOT_RECEIPTS).format(n=n)))
    rng.shuffle(orders)  # inserted out of id order: a query without ORDER BY reads them so
    rng.shuffle(mails)
    return Lost(tuple(orders), tuple(mails))


def lost_families() -> list[Callable[[random.Random], Lost]]:
    def plain(rng):
        return _lost(rng, _ids(rng, rng.randint(1, 6)), customers=[1, 2, 3, 4, 5], delivered=0.6)

    def regulars(rng):  # one customer, several orders, fewer receipts
        return _lost(rng, _ids(rng, rng.randint(2, 4)), customers=[rng.randint(1, 5)], delivered=0.5)

    def noise(rng):  # duplicates, strays, emails that are not receipts
        return _lost(rng, _ids(rng, rng.randint(1, 5)), customers=[1, 2, 3], delivered=0.5, noise=rng.randint(1, 5))

    def numbers(rng):  # order numbers that are pieces of one another
        return _lost(rng, _ids(rng, rng.randint(2, 5), related=True), customers=[1, 2], delivered=0.5,
                     noise=rng.randint(0, 2))

    def edges(rng):  # nothing, or everything delivered
        ids = _ids(rng, rng.randint(0, 3))
        return _lost(rng, ids, customers=[1, 2, 3], delivered=rng.choice([0.0, 1.0]), noise=rng.choice([0, 0, 2]))

    def statuses(rng):  # orders delivered, cancelled, on their way: still orders
        return _lost(rng, _ids(rng, rng.randint(2, 6)), customers=[1, 2, 3, 4, 5], delivered=0.4, statuses=True)

    def many(rng):  # more orders than a page, or than any LIMIT 50 or 100, and customers beyond the demo's five
        count = rng.choice([rng.randint(25, 40), rng.randint(101, 140)])
        return _lost(rng, _ids(rng, count), customers=list(range(1, 9)), delivered=0.5, noise=rng.randint(0, 6))

    def day(rng):  # more orders than any "recent" LIMIT 200, 500 or 1000: the oldest ones lost (half of the
        count = rng.choice([rng.randint(1001, 1100), rng.randint(201, 320)])  # time: a big table costs a second)
        scene = _lost(rng, rng.sample(range(9812, 9812 + 2 * count), count), customers=list(range(1, 9)),
                      delivered=0.97, moved=0.05)
        oldest = sorted(scene.orders, key=lambda o: o.id)[:3]
        return replace(scene, mails=tuple(m for m in scene.mails if _number(m) not in {o.id for o in oldest}))

    def moved(rng):  # customers who changed their email after some receipts were sent
        return _lost(rng, _ids(rng, rng.randint(2, 5)), customers=[1, 2, 3], delivered=0.8, moved=0.6)

    return [plain, regulars, noise, numbers, edges, statuses, many, day, moved]


BIG = 150  # a scene with more orders than this is told in numbers, not order by order


def reference_ids(scene: Lost) -> list[int]:
    """What the reference returns on the scene, without a database."""
    received = {_number(m) for m in scene.mails if _is_receipt(m)}
    return sorted(o.id for o in scene.orders if o.id not in received)


def reference_lost(conn, deliveries) -> list[int]:
    """The solution's function: the number of each receipt's whole subject; every order without one."""
    received = set()
    for delivery in deliveries:
        match = re.fullmatch(r"Your Tiffin receipt for order #(\d+)", delivery.subject)
        if match:
            received.add(int(match.group(1)))
    return [order_id for (order_id,) in conn.execute("SELECT id FROM orders ORDER BY id") if order_id not in received]


LIST = "returns a list of order ids ([] when nothing is missing)"
EVERY = "lists each order whose receipt never came, even when its customer got a receipt for another order"
NOT_FOOLED = "is not fooled by a duplicate receipt, an email that is not a receipt or another order's number"
ASCENDING = "lists the order ids in ascending order"
LOST_CHECKS = (LIST, EVERY, NOT_FOOLED, ASCENDING)


class LostJudge:
    def __init__(self, t: Trial, conn, reader: Reader, answer: Callable):
        self.t, self.conn, self.reader, self.answer = t, conn, reader, answer

    def run(self, scene: Lost) -> tuple[Attempt, list[int], bool]:
        """(what the answer did, what the reference returns, whether the answer changed any table), on the
        scene's rows, in one transaction rolled back afterwards."""
        def both(conn):
            ref = reference_lost(conn, scene.deliveries())
            before = self.reader.read(conn)
            done = self.t.attempt(self.answer, conn, scene.deliveries())
            return Attempt(value=(done, ref, before))
        both_done, state = diff.in_rollback(self.conn, self.reader, install_orders(scene), both)
        done, ref, before = both_done.value
        return done, ref, bool(mismatches(before, state))

    def compare(self, scene: Lost) -> diff.Finding | None:
        done, ref, wrote = self.run(scene)
        if done.error is not None:
            quiet = replace(scene, mails=tuple(m for m in scene.mails if _is_receipt(m)))
            if quiet != scene and self.run(quiet)[0].error is None:
                return diff.Finding(NOT_FOOLED, got=f"yours raised {done.error}", expected=short(ref),
                                    note="it raised on an email that is not a receipt: skip every subject that is not "
                                         "exactly a receipt's")
            return diff.Finding(LIST, got=f"yours raised {done.error}", expected=short(ref))
        mine = done.value
        if not isinstance(mine, list):
            return diff.Finding(LIST, got=f"{short(mine)} ({type(mine).__name__})", expected=short(ref),
                                note="a list, in ascending order: sorted(...) or a list comprehension over "
                                     "SELECT ... ORDER BY id gives one")
        if any(type(i) is not int for i in mine):
            return diff.Finding(LIST, got=short(mine), expected=short(ref), note="the order ids themselves, as ints")
        if mine != ref and sorted(mine) == ref:
            return diff.Finding(ASCENDING, got=short(mine), expected=short(ref),
                                note="smallest id first: SELECT ... ORDER BY id (a table without ORDER BY comes back "
                                     "in whatever order its rows are stored)")
        if mine != ref:
            return self._which(scene, mine, ref)
        if wrote:
            return diff.Finding(EVERY, got="your function changed the tables", expected="it only reads them")
        return None

    def _which(self, scene: Lost, mine: list, ref: list) -> diff.Finding:
        left_out, extra = [i for i in ref if i not in mine], [i for i in mine if i not in ref]
        got = short(mine) + "".join(f"; {what} {short(ids)}" for what, ids in
                                    (("it leaves out", left_out), ("it lists too", extra)) if ids)
        expected = short(ref)
        table = {o.id for o in scene.orders}
        stranger = next((i for i in mine if i not in table), None)
        if stranger is not None:
            return diff.Finding(NOT_FOOLED, got=got, expected=expected, note=(
                f"{stranger} is not an order in the table: list only the orders in `orders`"))
        if len(mine) != len(set(mine)):
            return diff.Finding(EVERY, got=got, expected=expected, note="each order once")
        # The cause, by experiment: the difference goes when one thing is changed in the scenario.
        receipts = [m for m in scene.mails if _is_receipt(m)]
        experiments = [
            (EVERY, replace(scene, orders=tuple(replace(o, age_s=60.0) for o in scene.orders)),
             "every order in the table, however old: with every order placed a minute ago yours agrees, so it "
             "leaves out older orders (no filter on created_at){}", ""),
            (EVERY, replace(scene, mails=tuple(Mail(email_of(next((o.customer for o in scene.orders
                                                                   if o.id == _number(m)), 1)), m.subject)
                                                    if _is_receipt(m) else m for m in scene.mails)),
             "a receipt counts whatever address it went to: its customer may have changed their email since "
             "(an address ending .old@...). Match each receipt to its order by the number in its subject, not by "
             "the customer's email{}", ""),
            (EVERY, replace(scene, mails=tuple(Mail(ELSEWHERE, m.subject) for m in scene.mails)),
             "which orders you list changes with the addresses the emails went to, and it must not: match each "
             "receipt to its order by the number in its subject, not by the address (a customer can have several "
             "orders, and one receipt is not all of theirs){}", ""),
            (EVERY, replace(scene, orders=tuple(replace(o, status="placed") for o in scene.orders)),
             "every order in the table, whatever its status{}", ""),
            (NOT_FOOLED, replace(scene, mails=tuple(receipts)),
             "{!r} is not a receipt, though it names an order: only a subject that is exactly \"Your Tiffin receipt for "
             "order #<n>\" is one", next((m.subject for m in scene.mails if not _is_receipt(m)), "")),
            (NOT_FOOLED, replace(scene, mails=tuple(m for m in scene.mails if not _is_receipt(m) or _number(m) in table)),
             "{!r} is the receipt of an order not in the table: compare whole numbers ('#98130' contains '9813' "
             "without being its receipt)", next((m.subject for m in receipts if _number(m) not in table), "")),
            (NOT_FOOLED, _one_length(scene),
             "an order's number inside another's ({}) is not its receipt: compare whole numbers, not substrings",
             _pieces(scene)),
            (NOT_FOOLED, replace(scene, mails=tuple(dict.fromkeys(scene.mails))),
             "a receipt delivered twice is one order with its receipt{}", ""),
            (NOT_FOOLED, _one_length(replace(scene, mails=tuple(dict.fromkeys(m for m in receipts
                                                                            if _number(m) in table)))),
             "only the exact receipt of an order in the table counts, once: not an email that merely names a number, "
             "not a receipt for a number that contains this one (compare whole numbers){}", ""),
        ]
        for check, variant, note, detail in experiments:
            if variant != scene and self._agrees(variant):
                return diff.Finding(check, got=got, expected=expected, note=note.format(detail))
        if mine and not extra and mine == ref[:len(mine)]:
            return diff.Finding(EVERY, got=got, expected=expected, note=(
                f"yours stops after the first {len(mine)} lost orders of {len(ref)}: every order in the table, "
                "with no LIMIT and no page size"))
        if not extra and len(scene.orders) > BIG and self._agrees(_newest(scene, BIG)):
            return diff.Finding(EVERY, got=got, expected=expected, note=(
                f"with the newest {BIG} orders only, yours agrees; with {len(scene.orders)} it leaves out "
                f"{short(left_out)}: every order in the table, however many (no LIMIT, not only the newest)"))
        return diff.Finding(EVERY, got=got, expected=expected,
                            note="the orders whose number no delivered receipt's subject names, all of them")

    def _agrees(self, scene: Lost) -> bool:
        done, ref, _ = self.run(scene)
        return done.error is None and done.value == ref


def _newest(scene: Lost, count: int) -> Lost:
    keep = set(sorted(o.id for o in scene.orders)[-count:])
    return replace(scene, orders=tuple(o for o in scene.orders if o.id in keep),
                   mails=tuple(m for m in scene.mails if not _is_receipt(m) or _number(m) in keep))


def _is_receipt(mail: Mail) -> bool:
    return re.fullmatch(r"Your Tiffin receipt for order #\d+", mail.subject) is not None


def _number(mail: Mail) -> int:
    return int(mail.subject.rsplit("#", 1)[1])


def _one_length(scene: Lost) -> Lost:
    """The scene with every order number replaced by one of five digits (none a piece of another), in its
    subjects too: an experiment that takes substrings out of the picture."""
    numbers = sorted({o.id for o in scene.orders} | {int(n) for m in scene.mails if (n := _named(m))})
    new = {old: 70001 + n for n, old in enumerate(numbers)}

    def renamed(mail: Mail) -> Mail:
        head, hash_, tail = mail.subject.rpartition("#")
        number = tail.split(" ")[0]
        if not hash_ or not number.isdigit():
            return mail
        return Mail(mail.to, f"{head}#{new[int(number)]}{tail[len(number):]}")
    return replace(scene, orders=tuple(replace(o, id=new[o.id]) for o in scene.orders),
                   mails=tuple(renamed(m) for m in scene.mails))


def _named(mail: Mail) -> str | None:
    """The number after the subject's last '#', as written, or None."""
    head, hash_, tail = mail.subject.rpartition("#")
    number = tail.split(" ")[0]
    return number if hash_ and number.isdigit() else None


def _pieces(scene: Lost) -> str:
    numbers = sorted({str(o.id) for o in scene.orders} | {n for m in scene.mails if (n := _named(m))})
    pair = next(((a, b) for a in numbers for b in numbers if a != b and a in b), None)
    return f"{pair[0]} in #{pair[1]}" if pair else "one in another"


@exercise_check("01.receipts_lost")
def receipts_lost_check(t: Trial, receipts_lost, seed=None):
    t.seed = RECEIPTS_SEED if seed is None else seed
    box = t.scratch()
    tiffin.install(box.conn)
    judge = LostJudge(t, box.conn, Reader.of(box.conn, only=("customers", "orders", "jobs")), receipts_lost)
    verdicts = diff.Verdicts(t, LOST_CHECKS)
    diff.search(verdicts, diff.in_turn(lost_families()), judge.compare, seed=t.seed, count=RECEIPT_SCENARIOS)
    verdicts.report()

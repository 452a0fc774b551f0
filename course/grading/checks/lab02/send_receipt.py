"""02.send_receipt: the handler, judged against the reference (the solution's handler) on the same orders and
customers, in this process, over runs drawn from everything the statement allows — customers who move,
change their email or their name between two jobs and between a job's tries; several orders of one
customer; items of every shape; a provider that accepts, is down, is out for a while (Retry-After),
refuses one send and accepts the next, rejects an impossible address, or is slow (1.5 s: a send the
handler stops waiting for is delivered anyway) — each run's job claimed from
the real queue and its outcome applied as a worker applies it (ack, retry, dead letter). Then in two real
worker processes against a provider that refuses about a third of the sends.

What is compared: the emails the provider delivered in each run (to, subject, body), and what became of
each job (done, tried again, dead-lettered). What is free: the Idempotency-Key, and anything the handler
writes to the database.

One module, one exercise's check: the scenario in the learner's words, how it is drawn and shrunk, the run,
the reference and the judge only make sense together (the lab's package, lab02/__init__.py, registers it).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import cloudpickle
import psycopg
from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from course.core import queue
from course.errors import PermanentError
from course.infra import processes
from course.programs import tiffin
from course.programs.email_provider import EmailProvider, send_email

from course.grading import differential as diff
from course.grading import faults
from course.grading.trial import Attempt, Trial, short
from course.grading.checks.lab02.receipt_ids import Ids

SEED = 1  # the scenarios `check("02.send_receipt")` draws unless given another seed
SCENARIOS = 10
ADDRESSES = ("9 Riverside Walk", "40 Quayside, Flat 9", "Flat 3, 12 Rue de l'Église", "1 Ōsaka Dōri", "PO Box 7")
EMAILS = ("ana.souza@example.org", "ben+tiffin@example.com", "chen@mail.example")
NAMES = ("Ana S. Souza", "Bén Okafor", "陳偉")
ITEMS = ([{"name": "paneer thali", "quantity": 2, "price_cents": 1150}],
         [{"name": "dal makhani", "quantity": 1, "price_cents": 899},
          {"name": "naan", "quantity": 3, "price_cents": 250}],
         [{"name": "chai «masala»", "quantity": 12, "price_cents": 120}],
         [{"name": "it's \"thali\"", "quantity": 1, "price_cents": 99999}])
PROVIDER = {  # how the provider answers during a run, in the learner's words
    "accepts": "the provider accepts",
    "down": "the provider is down (503)",
    "outage": "the provider is in an outage for another minute (503, Retry-After: 60)",
    "refuses once": "the provider refuses the first send (503) and accepts the next",
    "slow": "the provider is slow: it accepts, and answers after {SLOW_S:g} s",
}
# Round f3 (sr_w12): a handler that sends with a short timeout and, on ProviderTimeout, sends again without a
# key passed while every provider answered at once. A slow provider still delivers what it was sent: a send
# that timed out on the handler's side may have gone out, and a second one is a second receipt. Slower than
# any timeout a hurried answer sets, well within the client's default (10 s).
SLOW_S = 1.5


# Round f4 (sr_w3, sr_w8, sr_w9): an order in every status the table allows but 'cancelled' (the kitchen moves
# orders on before the receipt goes out), a total that is not the sum of the items (the lab's own demo orders
# have no items at all), and jobs whose try is their last (max_attempts): the receipt is the order as stored,
# whatever its status, and a refusal on the last try still raises (the queue dead-letters the job).
STATUSES = ("placed", "placed", "preparing", "on_its_way", "delivered")
LAST_TRIES = (None, 1, 1, 2)  # a job's max_attempts (None: the queue's default)


@dataclass(frozen=True)
class Run:
    order: int  # the order's id
    provider: str = "accepts"
    again: bool = False  # the next try of the order's job, which failed last time

    def told(self) -> str:
        runs = "its job runs again" if self.again else f"the job for order {self.order} runs"
        return f"{runs} ({PROVIDER[self.provider].format(SLOW_S=SLOW_S)})"


@dataclass(frozen=True)
class Stored:
    """How an order is stored besides its items: its status, a total of its own (None: the items' sum), and
    its job's max_attempts (None: the queue's default)."""
    status: str = "placed"
    total: int | None = None
    tries: int | None = None

    def told(self) -> str:
        parts = ([f"status {self.status!r}"] if self.status != "placed" else []) + (
            [f"total_cents {self.total}"] if self.total is not None else []) + (
            [f"its job may be tried {self.tries} time(s) (max_attempts)"] if self.tries else [])
        return ", ".join(parts)


@dataclass(frozen=True)
class Change:
    customer: int
    column: str  # address, email or name
    value: str

    def told(self) -> str:
        return f"{_who(self.customer)} changes their {self.column} to {self.value!r}"


@dataclass(frozen=True)
class Receipts:
    orders: tuple[tuple[int, int, tuple], ...]  # (id, customer, items as a tuple of item tuples)
    events: tuple  # Run and Change, in order
    stored: tuple[tuple[int, Stored], ...] = ()  # (order id, how it is stored) where not the plain default

    def of(self, order_id: int) -> Stored:
        return dict(self.stored).get(order_id, Stored())

    def told(self) -> str:
        orders = ", ".join(f"{i} ({_who(c)}'s" + (f", {self.of(i).told()}" if self.of(i).told() else "") + ")"
                           for i, c, _ in self.orders)
        return f"orders {orders}; then " + "; then ".join(e.told() for e in self.events)

    def shrinks(self) -> Iterator["Receipts"]:
        # an order with no items keeps a total of its own (the table wants total_cents > 0)
        return (s for s in self._shrinks() if all(items or s.of(i).total for i, _, items in s.orders))

    def _shrinks(self) -> Iterator["Receipts"]:
        for index, event in enumerate(self.events):
            rest = self.events[:index] + self.events[index + 1:]
            if _coherent(rest):
                yield replace(self, events=rest)
            if isinstance(event, Run) and event.provider != "accepts":
                simpler = self.events[:index] + (replace(event, provider="accepts"),) + self.events[index + 1:]
                if _coherent(simpler):
                    yield replace(self, events=simpler)
        used = {e.order for e in self.events if isinstance(e, Run)}
        if len(self.orders) > len(used):
            yield replace(self, orders=tuple(o for o in self.orders if o[0] in used))
        for index, (order_id, stored) in enumerate(self.stored):
            yield replace(self, stored=self.stored[:index] + self.stored[index + 1:])
            for simpler in (replace(stored, status="placed"), replace(stored, total=None), replace(stored, tries=None)):
                if simpler != stored:
                    yield replace(self, stored=self.stored[:index] + ((order_id, simpler),) + self.stored[index + 1:])
        for index, (i, c, items) in enumerate(self.orders):
            if items != _items(ITEMS[0]):
                yield replace(self, orders=self.orders[:index] + ((i, c, _items(ITEMS[0])),) + self.orders[index + 1:])


def _who(customer: int) -> str:
    return tiffin.SEED_CUSTOMERS[customer - 1][0].split()[0]


def _items(items: list[dict]) -> tuple:
    return tuple((i["name"], i["quantity"], i["price_cents"]) for i in items)


def _coherent(events: tuple) -> bool:
    """A run 'again' follows a run of the same order that failed (the provider did not accept)."""
    last: dict[int, str] = {}
    for event in events:
        if isinstance(event, Run):
            if event.again and last.get(event.order) in (None, "accepts", "slow"):
                return False
            if not event.again and event.order in last:
                return False
            last[event.order] = event.provider
    return True


def _draw(rng: random.Random, orders: int, runs: list[str], changes: float, customers: list[int], *,
          every: bool | str = False) -> Receipts:
    """Orders of these customers, and runs of their jobs with the provider answering as `runs` says; before a
    run, with probability `changes`, a customer changes one thing (with `every`: all three, in some order;
    with every="address": the address alone)."""
    ids = [9812 + n for n in range(orders)]
    table = tuple((i, rng.choice(customers), _items(rng.choice(ITEMS) if rng.random() < 0.8 else [])) for i in ids)
    stored = []
    for i, _, items in table:
        total = sum(q * p for _, q, p in items)
        own = (rng.choice((999, 1250)) if not items else total + rng.choice((-150, 1, 250, 1000))
               if rng.random() < 0.4 else None)  # items sum to 1150 at least
        kept = Stored(rng.choice(STATUSES), own, rng.choice(LAST_TRIES))
        if kept != Stored():
            stored.append((i, kept))
    values = {"address": ADDRESSES, "email": EMAILS, "name": NAMES}
    events: list = []
    pending: list[int] = []
    for provider in runs:
        if events and rng.random() < changes:
            customer = rng.choice([c for _, c, _ in table])
            first = not any(isinstance(e, Change) for e in events)
            columns = (["address"] if every == "address" or (every == "address first" and first) else rng.sample(list(values), 3) if every
                       else [rng.choice(["address", "address", "email", "name"])])
            events += [Change(customer, column, rng.choice(values[column])) for column in columns]
        fresh = [i for i in ids if i not in {e.order for e in events if isinstance(e, Run)}]
        if pending and (rng.random() < 0.6 or not fresh):
            order = pending.pop(0)
            events.append(Run(order, provider, again=True))
        elif fresh:
            order = rng.choice(fresh)
            events.append(Run(order, provider))
        else:
            continue
        if provider not in ("accepts", "slow"):  # a slow provider accepts: no next try
            pending.append(order)
    return Receipts(table, tuple(events), tuple(stored))


def families() -> list[Callable[[random.Random], Receipts]]:
    def moves(rng):  # one customer, two or three orders; between the jobs, a new address, email and name
        return _draw(rng, rng.randint(2, 3), ["accepts", "accepts", "accepts"], 1.0, [rng.randint(1, 5)],
                     every="address first")  # round f4 (sr_w7): the address alone, then all three

    def refusals(rng):  # the provider says no, then the job runs again, the customer changed meanwhile
        return _draw(rng, rng.randint(1, 2), [rng.choice(["down", "outage", "refuses once"]), "accepts", "accepts"],
                     0.8, [1, 2, 3], every=True)

    def busy(rng):  # several customers and orders, every kind of answer
        return _draw(rng, 3, [rng.choice(list(PROVIDER)) for _ in range(4)], 0.4, [1, 2, 3, 4, 5])

    def impossible(rng):  # a customer whose email no mail server accepts: the provider rejects it (422)
        scene = _draw(rng, 1, ["accepts"], 0.0, [4])
        return replace(scene, events=(Change(4, "email", "dana@invalid"),) + scene.events)

    def one(rng):  # the notebook's case: one order, one job, the provider accepts
        return _draw(rng, 1, ["accepts"], 0.5, [1])

    def slow(rng):  # a provider that takes its time: a send that times out may still be delivered
        return _draw(rng, rng.randint(1, 2), ["slow", rng.choice(["accepts", "slow"])], 0.3, [1, 2, 3])

    return [moves, refusals, busy, impossible, one, slow]


# -- one run: the jobs claimed and settled as a worker settles them --------------------------------------------

PERMANENT = {"PermanentError", *(c.__name__ for c in PermanentError.__subclasses__())}
REFUSE_ONCE_SEED = next(s for s in range(10**6) if [(r := random.Random(s)).random() < 0.5, r.random() < 0.5,
                                                    r.random() < 0.5] == [True, False, False])


def _provider_for(provider: EmailProvider, how: str) -> None:
    if how == "slow":
        provider.configure(down=False, down_from=None, down_until=None, failure_rate=0.0, latency_s=SLOW_S)
    elif how == "accepts":
        provider.healthy()
    elif how == "down":
        provider.configure(down=True, failure_rate=0.0)
    elif how == "outage":
        provider.outage(60)
    else:  # the seeded draws refuse the first send and accept the next two
        provider.configure(down=False, down_from=None, down_until=None, failure_rate=0.5, seed=REFUSE_ONCE_SEED)


@dataclass(frozen=True)
class Sent:
    """What one run of a job did, as plain data."""
    emails: tuple  # (to, subject, body) of each email delivered during the run
    fate: str  # "done" (acked), "tried again" (retry), "dead-lettered", "lost" (its row is gone)
    raised: str | None


def _fate(conn: psycopg.Connection, job_id: int) -> str:
    live, dead = conn.execute("SELECT (SELECT count(*) FROM jobs WHERE id = %(id)s), "
                              "(SELECT count(*) FROM dead_jobs WHERE id = %(id)s)", {"id": job_id}).fetchone()
    return "tried again" if live else ("dead-lettered" if dead else "gone")


def play(conn: psycopg.Connection, provider: EmailProvider, scene: Receipts,
         handle: Callable[[queue.Job, psycopg.Connection], Attempt]) -> tuple:
    """The scene's events, each run's job claimed, handled and settled; what each run sent and became."""
    ids = Ids(next(_plays), _crossed(scene))
    conn.execute(_reset(scene, ids))
    provider.reset(settings=True)
    jobs: dict[int, int] = {}
    seen = []
    for event in scene.events:
        if isinstance(event, Change):
            value = ids.email(event.value) if event.column == "email" else event.value
            conn.execute(sql.SQL("UPDATE customers SET {} = %s WHERE id = %s").format(sql.Identifier(event.column)),
                         [value, ids.customer(event.customer)])
            continue
        if event.again:
            conn.execute("UPDATE jobs SET run_at = now() WHERE id = %s", [jobs[event.order]])
        else:
            tries = scene.of(event.order).tries
            jobs[event.order] = queue.enqueue(conn, "send_receipt", {"order_id": ids.order(event.order)},
                                              **({"max_attempts": tries} if tries else {}))
        job = queue.claim_one(conn, lease_s=60)
        if job is None:  # done or dead-lettered last time: there is no next try
            seen.append(Sent((), "no job left to run", None))
            continue
        _provider_for(provider, event.provider)
        delivered = len(provider.deliveries())
        done = handle(job, conn)
        if conn.info.transaction_status != TransactionStatus.IDLE:
            conn.rollback()  # a transaction the handler left open: a worker's connection would be reset
        # A send the handler gave up waiting for still completes: count it (only bounds a hang).
        processes.wait_until(lambda: provider.health()["requests_in_flight"] == 0, 60, what="the provider idle")
        provider.configure(latency_s=0.0)
        provider.healthy()
        if done.error is None:
            queue.ack(conn, job)
        else:
            queue.fail(conn, job, done.error, permanent=done.error_type in PERMANENT, backoff=_until_the_scene_says)
        emails = tuple((ids.logical_email(d.to), ids.logical(d.subject, scene), ids.logical(d.body, scene))
                       for d in provider.deliveries()[delivered:])
        seen.append(Sent(emails, "done" if done.error is None and _fate(conn, job.id) == "gone" else
                         _fate(conn, job.id), done.error))
    return tuple(seen)


_plays = itertools.count(1)


def _until_the_scene_says(attempt: int) -> float:
    """A failed job's next try waits an hour, until the scene runs it again: with the queue's jittered backoff
    (as short as 0 s), a retry could fall due before the next order's job, be claimed in its place, and the
    scenario would no longer replay the same on a loaded machine."""
    return 3600.0


def _crossed(scene: Receipts) -> tuple[tuple[int, int], ...]:
    """Each of the scene's customers gets the id of an order of another customer, while there is one left."""
    pairs, taken = [], set()
    for customer in _customers(scene):
        other = next((o for o, owner, _ in scene.orders if owner != customer and o not in taken), None)
        if other is not None:
            pairs.append((customer, other))
            taken.add(other)
    return tuple(pairs)


def _customers(scene: Receipts) -> list[int]:
    return sorted({c for _, c, _ in scene.orders} | {e.customer for e in scene.events if isinstance(e, Change)})


def _reset(scene: Receipts, ids: Ids) -> sql.Composable:
    """One round trip: no jobs and no orders; the scene's customers (as the demo's, under ids of this play's
    own) and its orders."""
    parts = [sql.SQL("DELETE FROM jobs; DELETE FROM dead_jobs; DELETE FROM orders; DELETE FROM customers WHERE id > 5")]
    customers = _customers(scene)
    if customers:
        rows = [[sql.Literal(ids.customer(c)), sql.Literal(name), sql.Literal(ids.email(email)), sql.Literal(address)]
                for c in customers for name, email, address in [tiffin.SEED_CUSTOMERS[c - 1]]]
        parts.append(sql.SQL("INSERT INTO customers (id, name, email, address) ") + diff.values(rows))
    if scene.orders:
        rows = [[sql.Literal(ids.order(i)), sql.Literal(ids.customer(c)),
                 sql.Literal(Jsonb([dict(zip(("name", "quantity", "price_cents"), item)) for item in items])),
                 sql.Literal(sum(q * p for _, q, p in items) if scene.of(i).total is None else scene.of(i).total),
                 sql.Literal(scene.of(i).status)] for i, c, items in scene.orders]
        parts.append(sql.SQL("INSERT INTO orders (id, customer_id, items, total_cents, status) ") + diff.values(rows))
    return sql.SQL("; ").join(parts)


RECEIPT_QUERY = """
SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address
FROM orders o JOIN customers c ON c.id = o.customer_id
WHERE o.id = %s"""


def reference(job, conn) -> None:
    """The solution's handler."""
    order_id = job.payload["order_id"]
    with conn.cursor(row_factory=dict_row) as cursor:
        details = cursor.execute(RECEIPT_QUERY, [order_id]).fetchone()
    if details is None:
        raise PermanentError(f"order {order_id} does not exist")
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body, idempotency_key=f"receipt:{order_id}")


ONE = "sends the customer one receipt per job, made with tiffin.render_receipt"
EMAIL = "the receipt goes to the customer's email as it is when the job runs"
FRESH = "the receipt shows the order, the name and the address as they are when the job runs"
RAISES = "a send the provider refuses raises, so the queue runs the job again (catch nothing)"
PICKLES = "the handler can be sent to a worker process"
FINISHED = "the run finished: the queue emptied before the time limit"
WORKERS = "in 2 worker processes, with about a third of the sends refused (503), every order gets its receipt"
READ_IN_WORKERS = "workers read the address when they run"
CHECKS = (ONE, EMAIL, FRESH, RAISES, PICKLES, FINISHED, WORKERS, READ_IN_WORKERS)


class Judge:
    def __init__(self, t: Trial, conn: psycopg.Connection, provider: EmailProvider, answer: Callable):
        self.t, self.conn, self.provider, self.answer = t, conn, provider, answer

    def run(self, scene: Receipts, learner: bool) -> tuple:
        def handle(job, conn):
            if learner:
                return self.t.attempt(self.answer, job, conn)
            try:
                reference(job, conn)
                return Attempt()
            except Exception as error:  # noqa: BLE001 (the provider's refusal, as the worker sees it)
                return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)
        with processes.environment(worker_env(self.provider)):
            return play(self.conn, self.provider, scene, handle)

    def compare(self, scene: Receipts) -> diff.Finding | None:
        ours, theirs = self.run(scene, True), self.run(scene, False)
        runs = [e for e in scene.events if isinstance(e, Run)]
        for run, mine, ref in zip(runs, ours, theirs):
            found = self._run(scene, run, mine, ref)
            if found:
                return found
        return None

    def _run(self, scene: Receipts, run: Run, mine: Sent, ref: Sent) -> diff.Finding | None:
        what = f"the job for order {run.order}" + (" (its next try)" if run.again else "")
        gave_up = (run.provider == "slow" and mine.fate == "tried again" and ref.fate == "done"
                   and (mine.raised or "").startswith("ProviderTimeout"))  # a shorter timeout, let out: free
        if mine.fate != ref.fate and not gave_up:
            if mine.raised and (ref.fate == "done" or self._raises_anyway(scene)):
                return diff.Finding(ONE, got=f"{what}: yours raised {mine.raised}", expected="the receipt sent, "
                                    "the job done")
            if (mine.fate == "done" and mine.emails and ref.fate == "dead-lettered"
                    and (ref.raised or "").split(":")[0] in PERMANENT):  # not a 503 on the job's last try  # the address is rejected for
                # good, so a send the provider took went to another address
                return diff.Finding(EMAIL, got=f"{what}: yours sent it to {mine.emails[0][0]}, which the provider took",
                                    expected=f"{ref.fate} (the reference raised {ref.raised})",
                                    note="the customer's email as it is when the job runs is one the provider rejects "
                                         "for good: yours sent to another address")
            return diff.Finding(RAISES, got=f"{what}: {mine.fate}" + (f" (yours raised {mine.raised})"
                                                                     if mine.raised else " (yours returned)"),
                                expected=f"{ref.fate} (the reference raised {ref.raised})" if ref.raised else ref.fate,
                                note=_why_fate(mine, ref))
        if len(mine.emails) != len(ref.emails):
            slow = run.provider == "slow" and len(mine.emails) > len(ref.emails)
            return diff.Finding(ONE, got=f"{what}: {len(mine.emails)} receipt(s) delivered",
                                expected=f"{len(ref.emails)}", note=(
                                    "the provider was slow, and a send your handler stopped waiting for was "
                                    "delivered anyway: a timeout does not mean 'not sent'. Send once and let "
                                    "ProviderTimeout out (the queue tries again), and give the send an "
                                    "Idempotency-Key that names the job, so a second try cannot deliver twice"
                                    if slow else f"the order's status is {scene.of(run.order).status!r}: its "
                                    "receipt goes out whatever the status (the kitchen may have moved it on "
                                    "before the job ran)" if not mine.emails and scene.of(run.order).status != "placed"
                                    else "one send per run: the customer gets one receipt per job, and a "
                                    "refused send is the queue's to try again"))
        for (to, subject, body), (ref_to, ref_subject, ref_body) in zip(mine.emails, ref.emails):
            if (subject, body) != (ref_subject, ref_body) and self._stale(scene):
                return diff.Finding(FRESH, got=f"{what}: {_shown(body)}", expected=_shown(ref_body),
                                    note="read the order and its customer from the database when the job runs, and "
                                         "keep nothing from one job (or one try) to the next")
            if to != ref_to:
                return diff.Finding(EMAIL, got=f"{what}: to {to}", expected=f"to {ref_to}",
                                    note="read the customer's email when the job runs" if self._stale(scene) else None)
            if (subject, body) != (ref_subject, ref_body):
                total = [line for line in ref_body.splitlines() if line.startswith("Total:")]
                return diff.Finding(ONE, got=f"{what}: {subject!r}, {_shown(body)}",
                                    expected=f"{ref_subject!r}, {_shown(ref_body)}",
                                    note="the total is the order's total_cents as stored, not the sum of its items "
                                         "(an order may have no items, or a total of its own)"
                                    if total and total[0] not in body else "make the email with tiffin.render_receipt(details), details being the dict "
                                         "of order_id, name, email, address, items, total_cents")
        return None

    def _raises_anyway(self, scene: Receipts) -> bool:
        """Whether the answer raises even when the provider accepts everything and every address is possible
        (an experiment: then the raise is the handler's own, not the provider's refusal passed on)."""
        calm = replace(scene, events=tuple(replace(e, provider="accepts") if isinstance(e, Run) else e
                                           for e in scene.events
                                           if not (isinstance(e, Change) and e.value.endswith("@invalid"))))
        calm = replace(calm, events=tuple(e for e in calm.events if not (isinstance(e, Run) and e.again)))
        return any(sent.raised for sent in self.run(calm, True))

    def _stale(self, scene: Receipts) -> bool:
        """Whether the difference goes away when nobody changes anything (an experiment)."""
        still = replace(scene, events=tuple(e for e in scene.events if isinstance(e, Run)))
        return still != scene and self.compare(still) is None


def _why_fate(mine: Sent, ref: Sent) -> str:
    if mine.fate == "done":
        return ("the provider refused the send and your handler returned normally: the worker then deletes the job as "
                "done, and the receipt is lost as in lab 01. Let the exception out of the handler" + (
                    ", on the job's last try too: then the queue dead-letters it, where it can be seen and run again"
                    if ref.fate == "dead-lettered" else ""))
    if mine.fate == "dead-lettered":
        return "your handler raised a PermanentError: the job was dead-lettered at once. A 503 is worth trying again"
    if ref.fate == "dead-lettered":
        return ("the provider rejected the address for good (EmailRejected, a PermanentError): let that exception "
                "through as it is, and the queue dead-letters the job instead of trying it eight times")
    if mine.fate == "gone":
        return "the job's row was gone after your handler ran: leave the queue's rows to the queue"
    return ""


def _shown(body: str) -> str:
    lines = [line for line in body.splitlines() if line.startswith(("Hello", "Total:", "Delivering to"))]
    return " / ".join(lines) if lines else short(body)


def worker_env(provider: EmailProvider) -> dict[str, str]:
    return {tiffin.PROVIDER_URL_ENV: provider.url, tiffin.RENDER_S_ENV: "0"}


# -- in real worker processes ------------------------------------------------------------------------------

RIVERSIDE = "9 Riverside Walk"
FAILURE_RATE = 0.3  # about a third of the sends are refused (503) in the worker run
WORKER_ORDERS = (2, 3, 4, 5, 2, 3)  # the customers of the orders the workers send receipts for


def provider_seed(seed: int, sends: int, refused: int) -> int:
    """The first seed from `seed` on whose first `sends` sends the provider refuses at least `refused`.

    The provider draws one number per send from random.Random(seed), in arrival order, and refuses the
    send when it is below the failure rate. Whatever the order the workers send in, the first sends
    then include refusals: a handler that swallows them cannot pass by luck.
    """
    candidate = seed
    while True:
        draws = random.Random(candidate)
        if sum(draws.random() < FAILURE_RATE for _ in range(sends)) >= refused:
            return candidate
        candidate += 1


def _receipts_for(provider: EmailProvider, order_id: int) -> list:
    subject = tiffin.SUBJECT.format(order_id=order_id)
    return [d for d in provider.deliveries() if d.subject == subject]


def _refused_addresses(provider: EmailProvider) -> str:
    return ", ".join(sorted({r.to for r in provider.requests() if r.status == 503}))


def _delivering_to(body: str) -> str:
    lines = [line for line in body.splitlines() if "Delivering to" in line]
    return lines[0] if lines else body[-120:]


def in_worker_processes(t: Trial, box, provider: EmailProvider, send_receipt, verdicts: diff.Verdicts) -> None:
    conn = box.conn
    try:
        cloudpickle.dumps(send_receipt)
        refused = None
    except Exception as error:  # noqa: BLE001 (whatever the learner's function refers to may refuse)
        refused = f"{type(error).__name__}: {error}"
    if refused:
        verdicts.add(diff.Finding(PICKLES, got=refused, expected="pickled with everything it refers to", note=(
            "it refers to something only this notebook has.\nA worker is another process: use the job and the "
            "connection you are given, and find the provider with tiffin.provider_url() (the EMAIL_PROVIDER_URL "
            "variable)")), "cloudpickle.dumps(send_receipt), as the fault injector ships it to its workers")
        return
    play(conn, provider, Receipts((), ()), lambda job, c: Attempt())  # empty tables, a fresh provider
    provider.configure(failure_rate=FAILURE_RATE, seed=provider_seed(t.seed, len(WORKER_ORDERS), refused=2))
    orders = [tiffin.place_order(conn, customer, total_cents=1000 + customer)["id"] for customer in WORKER_ORDERS]
    tiffin.change_address(conn, 3, RIVERSIDE)  # Chen moves after ordering, before any worker runs
    scenario = faults.Scenario(send_receipt, [{"order_id": order_id} for order_id in orders], workers=2,
                               concurrency=2, lease_s=5.0, env=worker_env(provider), timeout_s=60)
    run = faults.run(box, scenario, seed=t.seed)
    if run.timed_out:
        stuck = run.stuck[0] if run.stuck else None
        verdicts.add(diff.Finding(FINISHED, got=f"{run.left_in_queue} job(s) still in the queue", expected="0", note=(
            "a job that never completes keeps the queue from emptying: look for a handler that hangs"
            + (f"\nstill in the queue: {stuck}\n" + run.timeline(stuck["id"]) if stuck else ""))),
            f"{len(orders)} receipt jobs, 2 workers")
        return
    stats = provider.stats()["by_outcome"]
    missing = [order_id for order_id in orders if not _receipts_for(provider, order_id)]
    job_of = dict(zip(orders, run.job_ids))
    if missing:
        refusals = stats.get("failed", 0)
        dead = [order_id for order_id in missing if job_of[order_id] in run.dead]
        why = (f"the provider refused {refusals} send(s) (to {_refused_addresses(provider)}), and those jobs went to "
               "the dead-letter table: a refusal your handler raises as a PermanentError is never tried again.\n"
               if refusals and dead else
               f"the provider refused {refusals} send(s) (to {_refused_addresses(provider)}). A send the provider "
               "refused must raise out of the handler: then the queue runs the job again. A handler that returns "
               "normally tells the worker the job is done, and the receipt is lost as in lab 01.\n" if refusals else
               "the provider refused nothing, yet these orders got no receipt: your handler failed on its own in the "
               "workers (the timeline says how).\n")
        verdicts.add(diff.Finding(WORKERS, got=f"{len(missing)} order(s) without a receipt",
                                  expected=f"all {len(orders)} receipts", note=why + run.timeline(job_of[missing[0]])),
                     f"{len(orders)} orders; the provider refused {refusals} sends")
    chen = [d for order_id in orders[1::4] for d in _receipts_for(provider, order_id)]
    if chen and not all(RIVERSIDE in d.body for d in chen):
        verdicts.add(diff.Finding(READ_IN_WORKERS, got=str([_delivering_to(d.body) for d in chen]),
                                  expected=f"Delivering to: {RIVERSIDE}"), "Chen moved after ordering, before "
                                                                            "any worker ran")


def send_receipt_check(t: Trial, send_receipt, seed=None):
    t.seed = SEED if seed is None else seed
    box = t.scratch()
    tiffin.install(box.conn)
    provider = EmailProvider.start(latency_s=0.0, name="check-provider")
    verdicts = diff.Verdicts(t, CHECKS)
    try:
        judge = Judge(t, box.conn, provider, send_receipt)
        diff.search(verdicts, diff.in_turn(families()), judge.compare, seed=t.seed, count=SCENARIOS)
        in_worker_processes(t, box, provider, send_receipt, verdicts)
    finally:
        provider.kill()
    verdicts.report()

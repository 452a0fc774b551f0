"""Lab 05's outbox in the learner's words, for 05.relay: a scenario (the rows as stored, the call's limit, the
broker's behaviour), how it is drawn from everything the statement allows, shrunk and told, and the
stream the check hands relays as `publish`, which writes every call down.

The stream keeps JetStream's duplicate rule (a message whose Nats-Msg-Id it already holds is acknowledged
with duplicate=True and not stored), and can fail one publish the way the broker does when no
acknowledgement comes (nats.errors.TimeoutError).
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import nats.errors
from nats.js import api
from psycopg import sql
from psycopg.types.json import Jsonb

from course.infra import broker

from course.grading import differential as diff
from course.grading.snapshot import in_words
from course.grading.trial import short

# -- an outbox, in the learner's words -------------------------------------------------------------------


def _event(n: int) -> str:
    """A row's event_id: a uuid that does not look like anything else in the scenario."""
    return str(uuid.UUID(int=(0x5EED << 112) | (n * 0x9E3779B97F4A7C15 % (1 << 100)), version=4))


@dataclass(frozen=True)
class Row:
    id: int
    sent: float | None = None  # None: unsent; else when it was sent, seconds from now (-2: 2 s ago)
    subject: str = "orders.placed"
    payload: Any = None  # None: {"order_id": 9811 + id}
    created: float = -60.0  # seconds from now; never later than a row with a higher id
    event: str = ""  # its event_id; "" gives the row's own

    @property
    def body(self) -> Any:
        return {"order_id": 9811 + self.id} if self.payload is None else self.payload

    @property
    def event_id(self) -> str:
        return self.event or _event(self.id)

    def told(self) -> str:
        parts = ["unsent" if self.sent is None else f"sent {in_words(self.sent)}"]
        if self.created >= 0.0 or self.created <= -3600.0:  # its age matters to an answer that filters by it
            parts.insert(0, "just written" if self.created >= 0.0 else f"written {in_words(self.created)}")
        if self.subject != "orders.placed":
            parts.append(f"subject {self.subject}")
        if self.payload is not None:
            parts.append(f"payload {short(self.payload)}")
        return f"{self.id} ({', '.join(parts)})"


@dataclass(frozen=True)
class Outbox:
    """A scenario: the outbox as stored (rows in their storage order), the call's limit, the broker."""
    rows: tuple[Row, ...]
    limit: int = 10
    fails_at: int | None = None  # the broker does not answer this publish of the relay's (1: its first)
    down: bool = False  # ... nor any publish after it: a relay that tries a row again meets the failure again
    held: tuple[str, ...] = ()  # Nats-Msg-Ids the stream holds already: an earlier outbox's messages

    def row(self, row_id) -> Row | None:
        return next((r for r in self.rows if r.id == row_id), None)

    @property
    def unsent(self) -> list[Row]:
        return sorted((r for r in self.rows if r.sent is None), key=lambda r: r.id)

    def told(self) -> str:
        if not self.rows:
            told = "an empty outbox"
        else:
            listed = _grouped(sorted(self.rows, key=lambda r: r.id))
            told = "outbox " + ("row " if len(self.rows) == 1 else "rows ") + (
                listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1])
            order = [r.id for r in self.rows]
            if order != sorted(order):
                told += f" (stored in the order {', '.join(map(str, order))})"
        told += f"; relay_batch(conn, publish, {self.limit})"
        if self.fails_at:
            told += f"; the broker does not answer its {nth(self.fails_at)} publish" + (
                ", nor any after it (it is down)" if self.down else "")
        if self.held:
            told += (f"; the stream already holds messages with Nats-Msg-Id {', '.join(map(repr, self.held))} "
                     "(from an earlier outbox table)")
        return told

    def shrinks(self) -> Iterator["Outbox"]:
        n = len(self.rows)
        size = max(1, n // 2) if n else 0
        while size >= 1:
            for start in range(0, n, size):
                yield replace(self, rows=self.rows[:start] + self.rows[start + size:])
            size //= 2
        if self.limit > 1:
            for smaller in sorted({1, self.limit // 2, self.limit - 1, min(self.limit - 1, len(self.unsent))}):
                if 1 <= smaller < self.limit:
                    yield replace(self, limit=smaller)
        if self.fails_at is not None:
            yield replace(self, fails_at=None, down=False)
            if self.down:
                yield replace(self, down=False)
            if self.fails_at > 1:
                yield replace(self, fails_at=self.fails_at - 1)
        if self.held:
            yield replace(self, held=())
            if len(self.held) > 1:
                yield replace(self, held=self.held[:1])
        order = tuple(sorted(self.rows, key=lambda r: r.id))
        if order != self.rows:
            yield replace(self, rows=order)
        plainer = [lambda r: replace(r, payload=None), lambda r: replace(r, subject="orders.placed"),
                   lambda r: replace(r, sent=-1.0) if r.sent is not None and r.sent != -1.0 else r]
        for simpler in plainer:
            everywhere = tuple(simpler(r) for r in self.rows)
            if everywhere != self.rows:
                yield replace(self, rows=everywhere)
        for index, row in enumerate(self.rows):
            for simpler in plainer + [lambda r: replace(r, sent=None)]:
                candidate = simpler(row)
                if candidate != row:
                    yield replace(self, rows=self.rows[:index] + (candidate,) + self.rows[index + 1:])
        ids = sorted(r.id for r in self.rows)
        renumbered = {old: new for new, old in enumerate(ids, start=1)}
        if any(old != new for old, new in renumbered.items()):
            yield replace(self, rows=tuple(replace(r, id=renumbered[r.id], event=r.event_id) for r in self.rows))


def _grouped(rows: list[Row]) -> list[str]:
    """Rows told one by one, except that neighbours alike are told together: "1-8 (unsent)"."""
    told: list[tuple[int, int, str]] = []
    for row in rows:
        what = row.told().split(" ", 1)[1]
        if told and told[-1][2] == what and told[-1][1] == row.id - 1:
            told[-1] = (told[-1][0], row.id, what)
        else:
            told.append((row.id, row.id, what))
    return [f"{a}{'-' + str(b) if b != a else ''} {what}" for a, b, what in told]


def nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def install(outbox: Outbox) -> sql.Composable:
    """The rows, in their storage order, with their ids, event ids and times."""
    if not outbox.rows:
        return sql.SQL("SELECT")
    rows = [[sql.Literal(r.id), sql.Literal(r.event_id), sql.Literal(r.subject), sql.Literal(Jsonb(r.body)),
             diff.from_now(r.created), diff.from_now(r.sent)] for r in outbox.rows]
    return sql.SQL("INSERT INTO outbox (id, event_id, subject, payload, created_at, sent_at) OVERRIDING SYSTEM VALUE "
                   ) + diff.values(rows)


# -- drawing outboxes ----------------------------------------------------------------------------------------

SUBJECTS = ("orders.placed", "orders.cancelled", "riders.dispatch", "kitchen.ticket.v2")
ODD = ({}, [], "a plain string", 42, {"note": "naïve café ☃ 🍜", "quote": "it's \"fine\""},
       {"deep": {"a": {"b": [None, True, 1.5]}}}, {"big": "x" * 3000}, [1, "two", {"three": 3}])


AGES = (0.0, 5.0, 60.0, 3600.0, 3 * 86400.0, 40 * 86400.0)  # how long ago the first row was written
SENT_AGES = (0.5, 2.0, 30.0, 900.0, 7200.0, 30 * 3600.0, 4 * 86400.0)  # how long ago a sent row was sent


def _rows(rng: random.Random, count: int, *, sent_share: float, odd: float = 0.15, shuffled: float = 0.3,
          ids: str = "gaps") -> tuple[Row, ...]:
    # ids past 2^31 too (a sequence restarted high): an id read or cast as a 4-byte int does not fit
    start = rng.choice([1, 1, 2, 7, 40, 981, 2**31 - 2, 5_000_000_000])
    if ids == "gaps":
        numbers = sorted(rng.sample(range(start, start + 3 * count + 2), count))
    else:
        numbers = list(range(start, start + count))
    # rows of every age: written a moment ago, minutes, hours or days ago; sent moments to days after
    created = -rng.choice(AGES)
    rows, unused = [], list(ODD)
    for n in numbers:
        created += rng.choice([0.0, 0.0, 0.25, 1.0, -created / 4])  # rows of one transaction share a created_at
        created = min(created, 0.0 if created > -0.5 else -0.5)  # "just written": now(), the relay's moment
        sent = None
        if rng.random() < sent_share:  # sent after it was written
            sent = -rng.choice([a for a in SENT_AGES if a < -created] or [0.5])
        payload = None
        if unused and rng.random() < odd:
            payload = unused.pop(rng.randrange(len(unused)))
        subject = rng.choice(SUBJECTS) if rng.random() < 0.2 else "orders.placed"
        rows.append(Row(n, sent, subject, payload, created))
    if rng.random() < shuffled:
        rng.shuffle(rows)
    return tuple(rows)


def _limit(rng: random.Random, unsent: int) -> int:
    return rng.choice([x for x in (1, 2, 3, unsent - 1, unsent, unsent + 1, 10, 11, 12, 100) if x >= 1])


def families() -> list[Callable[[random.Random], Outbox]]:
    def few(rng):  # a handful of rows, all unsent
        rows = _rows(rng, rng.randint(1, 5), sent_share=0.0)
        return Outbox(rows, _limit(rng, len(rows)))

    def mixed(rng):  # sent and unsent rows side by side
        rows = _rows(rng, rng.randint(2, 9), sent_share=0.4)
        return Outbox(rows, _limit(rng, sum(r.sent is None for r in rows)))

    def nothing(rng):  # nothing to send: an empty outbox, or every row sent already
        rows = _rows(rng, rng.choice([0, 0, 1, 3]), sent_share=1.0)
        return Outbox(rows, rng.choice([1, 5, 10]))

    def many(rng):  # more unsent rows than a relay that takes ten whatever it is told would take; and, half
        # the time, more than the statement's largest limit (100), so that a relay that caps the limit it is given
        # (at 20, 50, 99...) takes fewer rows than the reference
        if rng.random() < 0.5:
            rows = _rows(rng, rng.randint(12, 24), sent_share=0.1)
            unsent = sum(r.sent is None for r in rows)
            return Outbox(rows, rng.choice([11, 12, 15, unsent, unsent + 3, 100]))
        rows = _rows(rng, rng.randint(101, 106), sent_share=0.0, odd=0.0, ids="from start")
        return Outbox(rows, rng.choice([100, 100, sum(r.sent is None for r in rows)]))

    def stored_backwards(rng):  # stored newest first: only ORDER BY id gives the oldest first
        rows = tuple(sorted(_rows(rng, rng.randint(3, 8), sent_share=0.2, shuffled=0), key=lambda r: -r.id))
        return Outbox(rows, _limit(rng, sum(r.sent is None for r in rows)))

    def odd(rng):  # odd payloads and subjects
        rows = _rows(rng, rng.randint(1, 6), sent_share=0.2, odd=0.8)
        return Outbox(rows, _limit(rng, len(rows)))

    def broker_fails(rng):  # the broker does not answer one publish
        rows = _rows(rng, rng.randint(1, 7), sent_share=0.2)
        unsent = sum(r.sent is None for r in rows)
        limit = _limit(rng, unsent)
        return Outbox(rows, limit, fails_at=rng.randint(1, max(1, min(limit, unsent))))

    def broker_down(rng):  # the broker stops answering part-way, for longer than the relay tries again
        return replace(broker_fails(rng), down=True)

    def earlier_stream(rng):  # the outbox was created again: ids from 1, the stream holds the old ones
        rows = _rows(rng, rng.randint(1, 5), sent_share=0.0, ids="from 1")
        rows = tuple(replace(r, id=r.id - min(x.id for x in rows) + 1) for r in rows)
        held = tuple(str(n) for n in range(1, rng.randint(2, 8))) + (_event(9000 + rng.randint(1, 99)),)
        return Outbox(rows, _limit(rng, len(rows)), held=held)

    return [few, mixed, nothing, many, stored_backwards, odd, broker_fails, broker_down, earlier_stream]


# -- the stream, as the check records it ------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One publish, as the stream saw it: which relay made it, the message, and what became of it."""
    relay: str
    subject: str
    payload: Any  # as a consumer decodes it
    msg_id: str | None  # the Nats-Msg-Id header
    outcome: str  # "stored", "copy" (dropped: its Nats-Msg-Id was held), "no answer" (the injected failure)


class Stream:
    """The `publish` handed to relays, and a record of every call. JetStream's duplicate rule is kept: a
    message whose Nats-Msg-Id the stream already holds is acknowledged (duplicate=True) and not stored."""

    def __init__(self):
        self._lock = threading.Lock()
        self.calls: list[Call] = []
        self.ids: set[str] = set()
        self.fails_at: int | None = None
        self.down = False
        self.step: Callable[[str], None] | None = None  # a kill point's, before each publish

    def reset(self, outbox: Outbox) -> None:
        with self._lock:
            self.calls, self.ids, self.fails_at, self.step = [], set(outbox.held), outbox.fails_at, None
            self.down = outbox.down

    def publisher(self, relay: str = "A") -> Callable:
        def publish(subject, payload=b"", msg_id=None, **options):
            if self.step is not None and relay == "A":
                self.step(f"publish({short(subject)}, ...)")
            body = broker.decode(broker.encode(payload))
            key = None if msg_id is None else str(msg_id)
            with self._lock:
                mine = sum(1 for c in self.calls if c.relay == relay)
                if relay == "A" and self.fails_at is not None and (
                        self.fails_at == mine + 1 or (self.down and mine + 1 > self.fails_at)):
                    self.calls.append(Call(relay, subject, body, key, "no answer"))
                    raise nats.errors.TimeoutError  # what broker.publish raises when no ack comes
                copy = key is not None and key in self.ids
                if key is not None:
                    self.ids.add(key)
                self.calls.append(Call(relay, subject, body, key, "copy" if copy else "stored"))
                return api.PubAck(stream="CHECK05", seq=sum(c.outcome == "stored" for c in self.calls),
                                  duplicate=copy)
        publish.__name__ = "publish"
        return publish

    def of(self, relay: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.relay == relay]



"""The course's job queue, on a NATS JetStream work queue: the same ideas, on a replicated broker.

Each idea of the Postgres queue has a JetStream counterpart, and this module wires them together:

    the jobs table              a stream with work-queue retention: a message is deleted when acked
    claim + lease (run_at)      a pull consumer's fetch; the consumer's AckWait is the lease
    extend_lease (heartbeat)    an in-progress ack (+WPI): `task.in_progress()` restarts the AckWait
    ack                         ack: the message leaves the stream
    fail -> retry with backoff  no ack: JetStream redelivers when the delivery's BackOff wait runs out
    max_attempts                the consumer's MaxDeliver
    PermanentError -> bury      our consumer copies the message to the dead-letter stream, then terms it
    bury at max_attempts        the same, when the last delivery fails; when nobody is left to do it
                                (the consumer died on the last delivery), JetStream's max-deliveries
                                advisory is the signal, and our router moves the message
    redrive                     `redrive()`: back to its subject, with a fresh Nats-Msg-Id
    unique_key at enqueue       Nats-Msg-Id: the stream drops a second copy within its duplicate window

Two JetStream facts this module works around, both easy to trip on:
  * BackOff is the AckWait of each delivery in turn (the first value replaces AckWait itself): one timer
    is both the lease and the retry delay. The server applies it to deliveries nobody acknowledged; a
    bare nak comes back at once. So our consumer leaves a failed message unacknowledged, and a slow
    handler calls `task.in_progress()` to keep its delivery.
  * Advisories are plain NATS messages: nobody listening, nobody told. `reset()` creates a small stream
    that stores the max-deliveries advisories, so a router that was down catches up when it comes back.

    reset(queue, servers)                      create the streams and consumers, empty
    Publisher(servers).publish(...)            one publish attempt (raises what a retry may fix)
    publish_with_retry(publish, ...)           retry with the same Nats-Msg-Id until acknowledged
    jetstream_consumer.Consumer                fetch, run, ack; bury what cannot succeed
    dead_letters(queue, servers), redrive(...) the dead-letter stream, and back
    read_history(path)                         what the processes did, for timelines and checks

The consumer's loop is jetstream_consumer.py; the consumer and producer processes, jetstream_run.py;
the cluster table and the figures, jetstream_view.py.

Why one module: it is one work queue's configuration. The streams, the consumers' settings, the
publisher's message ids and the dead-letter stream are one configuration seen from several sides; each
part reads what reset() created, and a change to one (the BackOff, MaxDeliver, the duplicate window)
changes what the others must do. The history of what the processes did is read with the same names.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from course.infra import broker, eventlog, processes
from course.infra.broker import MSG_ID, TRANSIENT
from course.errors import BrokerUnavailable, InvalidArgument

log = logging.getLogger("course.programs.jetstream_queue")

ROUTER = "dead-letter-router"  # the durable consumer that turns advisories into dead letters
MAX_DELIVERIES_ADVISORY = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"


# -- the queue's shape -----------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkQueue:
    """A work queue: a stream, one durable consumer its workers share, and a dead-letter stream.

    `ack_wait_s` is the lease. `backoff_s`, when given, is the wait of each delivery in turn (JetStream
    BackOff): the lease of that delivery, and how long a failed message waits before it comes back. Its
    first value replaces `ack_wait_s`. `max_deliver` counts deliveries, the first included (max_attempts).
    """

    name: str = "RECEIPTS"
    replicas: int = 3
    ack_wait_s: float = 30.0
    backoff_s: tuple[float, ...] = ()
    max_deliver: int = 8
    consumer: str = "workers"
    duplicate_window_s: float = broker.DEFAULT_DUPLICATE_WINDOW_S

    def __post_init__(self) -> None:
        if not broker_name(self.name):
            raise InvalidArgument(f"{self.name!r} is not a stream name: use letters, digits, '_' or '-'.")
        if not 1 <= self.replicas <= 5:
            raise InvalidArgument(f"replicas must be 1 to 5 (3 survives one node's loss); got {self.replicas!r}.")
        if self.ack_wait_s <= 0 or any(wait <= 0 for wait in self.backoff_s):
            raise InvalidArgument("ack_wait_s and every backoff_s value are seconds, more than 0.")
        if not 1 <= self.max_deliver <= 1000 or self.max_deliver < len(self.backoff_s):
            raise InvalidArgument(f"max_deliver must be 1 to 1000 and at least the number of backoff values "
                                  f"({len(self.backoff_s)}); got {self.max_deliver!r}.")
        object.__setattr__(self, "backoff_s", tuple(float(w) for w in self.backoff_s))

    @property
    def prefix(self) -> str:
        return self.name.lower()

    def subject(self, kind: str = "job") -> str:
        """Where to publish a job of this kind: 'receipts.send'."""
        return f"{self.prefix}.{kind}"

    @property
    def dead_stream(self) -> str:
        return f"{self.name}_DEAD"

    @property
    def advisory_stream(self) -> str:
        return f"{self.name}_ADVISORIES"

    @property
    def advisory_subject(self) -> str:
        return f"{MAX_DELIVERIES_ADVISORY}.{self.name}.{self.consumer}"

    def wait_after(self, deliveries: int) -> float:
        """How long delivery number `deliveries` may stay unacknowledged, and the pause after it fails."""
        if not self.backoff_s:
            return self.ack_wait_s
        return self.backoff_s[min(deliveries, len(self.backoff_s)) - 1]


def broker_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= 48 and all(c.isalnum() or c in "_-" for c in name)


def reset(queue: WorkQueue, servers: broker.Servers, timeout: float = 60.0) -> None:
    """Create the queue's streams and consumers, empty (deleting any from an earlier run)."""
    common = dict(num_replicas=queue.replicas, storage=api.StorageType.FILE)
    steps = [
        *[("delete", stream, None) for stream in (queue.name, queue.dead_stream, queue.advisory_stream)],
        ("stream", queue.name, dict(subjects=[f"{queue.prefix}.>"], retention=api.RetentionPolicy.WORK_QUEUE,
                                    duplicate_window=queue.duplicate_window_s, **common)),
        ("stream", queue.dead_stream, dict(subjects=[f"{queue.prefix}_dead.>"], **common)),
        ("stream", queue.advisory_stream, dict(subjects=[queue.advisory_subject],
                                               retention=api.RetentionPolicy.WORK_QUEUE, **common)),
        ("consumer", queue.name, api.ConsumerConfig(
            durable_name=queue.consumer, ack_policy=api.AckPolicy.EXPLICIT,
            ack_wait=queue.backoff_s[0] if queue.backoff_s else queue.ack_wait_s,
            backoff=list(queue.backoff_s) or None, max_deliver=queue.max_deliver, max_ack_pending=10_000)),
        ("consumer", queue.advisory_stream, api.ConsumerConfig(
            durable_name=ROUTER, ack_policy=api.AckPolicy.EXPLICIT, ack_wait=10.0)),
    ]

    async def step(js, kind: str, stream: str, config) -> None:
        if kind == "delete":
            try:
                await js.delete_stream(stream)
            except nats.js.errors.NotFoundError:
                pass
        elif kind == "stream":
            await js.add_stream(name=stream, **config)
        else:
            await js.add_consumer(stream, config)

    async def work(js):
        deadline = time.monotonic() + timeout
        for kind, stream, config in steps:
            while True:  # a cluster that just formed may still be placing its first streams: try again
                try:
                    await step(js, kind, stream, config)
                    break
                except TRANSIENT as error:
                    if isinstance(error, nats.js.errors.APIError) and not isinstance(error, nats.js.errors.ServiceUnavailableError):
                        raise
                    if time.monotonic() > deadline:
                        raise BrokerUnavailable(f"JetStream did not answer ({kind} {stream}) within "
                                                       f"{timeout:.0f} s: {type(error).__name__}") from None
                    log.info("reset: %s %s failed (%s); trying again", kind, stream, type(error).__name__)
                    await asyncio.sleep(0.2)

    broker.run(broker._using_jetstream(servers, work, 3.0), timeout=timeout + 30)
    broker.until_routed(queue.subject("probe"), servers)  # the first publish, on any server, reaches the stream


def consumer_state(queue: WorkQueue, servers: broker.Servers) -> dict:
    """What waits, what is out with a worker, and what was redelivered: the queue's dashboard numbers; and
    the BackOff the server holds for the consumer (seconds, one per delivery)."""
    async def work(js):
        info = await js.consumer_info(queue.name, queue.consumer)
        return {"waiting": info.num_pending, "in_flight": info.num_ack_pending,
                "redelivered": info.num_redelivered, "leader": info.cluster.leader if info.cluster else None,
                "backoff_s": tuple(info.config.backoff or ())}

    return broker.run(broker._using_jetstream(servers, work, 5.0), timeout=20)


# -- publishing --------------------------------------------------------------------------------------


class Publisher:
    """One connection to the cluster, kept open; `publish` makes exactly one attempt.

    A failed attempt raises one of broker.TRANSIENT (nats.errors.Error, OSError, TimeoutError): the
    message may or may not be stored (the ack can be lost on the way back). Retrying with the same
    Nats-Msg-Id is what makes "may or may not" safe.
    """

    def __init__(self, servers: broker.Servers, *, timeout: float = 1.0, name: str = "publisher"):
        self.timeout = timeout
        self._nc = broker.run(broker.connect(servers, name=f"{name}:{os.getpid()}", max_reconnect_attempts=-1,
                                             reconnect_time_wait=0.1), timeout=30)
        self._js = self._nc.jetstream(timeout=timeout)

    def publish(self, subject: str, payload=b"", *, msg_id: str | None = None,
                headers: dict[str, str] | None = None) -> api.PubAck:
        all_headers = {**(headers or {}), **({MSG_ID: str(msg_id)} if msg_id is not None else {})}
        return broker.run(self._js.publish(subject, broker.encode(payload), headers=all_headers or None),
                          timeout=self.timeout + 10)

    def close(self) -> None:
        broker.run(self._nc.close(), timeout=10)

    def __enter__(self) -> "Publisher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def publish_with_retry(publish: Callable, subject: str, payload, msg_id: str, give_up_after_s: float = 30.0):
    """Publish until JetStream acknowledges, always with the same Nats-Msg-Id; return the PubAck.

    A timed-out attempt may have been stored: with the same id, the stream keeps one copy either way.
    Pauses double from 50 ms to 0.5 s, so an election of a few seconds is ridden out without hammering.
    """
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)


# -- what the processes did ----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Event(eventlog.Event):
    """One line of a consumer's or producer's history (course/infra/history.py); t is unix time.

    kind, for consumers: started, received, in_progress, finished, failed, acked, left (for a retry),
    dead_lettered, routed, stopped; for producers: published, publish_failed.
    """

    who: str  # the process's name: consumer0, producer, ...
    seq: int | None = None  # the message's sequence in the stream
    msg_id: str | None = None
    deliveries: int | None = None
    detail: str = ""


record = eventlog.record  # record(path, who=..., kind=..., msg_id=..., ...): one event, now, this pid


def read_history(path: str | Path) -> list[Event]:
    return eventlog.read(path, Event)


def new_history(prefix: str = "course-js-") -> str:
    """A fresh, empty history file in the folder the notebook's processes share (eventlog.new_file): for
    a notebook's own runs. A check keeps the history it judges from (eventlog.Kept: spawn_consumers' kept=)."""
    return eventlog.new_file(prefix)


@dataclass(frozen=True)
class Outcome:
    """What happened to the messages, from the processes' history."""

    deliveries: dict[str, int]  # msg_id -> times a consumer received it
    executions: dict[str, int]  # msg_id -> times a handler ran to its end (finished or failed)
    acked: set[str]
    dead: set[str]

    @classmethod
    def of(cls, events: Sequence[Event]) -> "Outcome":
        received, ran = Counter(), Counter()
        acked, dead = set(), set()
        for e in events:
            if e.msg_id is None:
                continue
            if e.kind == "received":
                received[e.msg_id] += 1
            elif e.kind in ("finished", "failed"):
                ran[e.msg_id] += 1
            elif e.kind == "acked":
                acked.add(e.msg_id)
            elif e.kind == "dead_lettered":
                dead.add(e.msg_id)
        return cls(dict(received), dict(ran), acked, dead)

    def ran_more_than_once(self) -> list[str]:
        return sorted(m for m, n in self.executions.items() if n > 1)


def wait_for(history: str | Path, kind: str, msg_id: str | None = None, *, count: int = 1,
             timeout: float = 30.0) -> Event:
    """Wait until the history holds `count` events of `kind` (about `msg_id`, if given); return the last."""
    def found():
        matching = [e for e in read_history(history) if e.kind == kind and (msg_id is None or e.msg_id == msg_id)]
        return matching[count - 1] if len(matching) >= count else None

    return processes.wait_until(found, timeout, interval=0.02, what=f"{count} x {kind!r} {msg_id or ''}".strip())


def settled(history: str | Path, msg_ids: Sequence[str]) -> bool:
    """Every message acknowledged or dead-lettered, and no handler still running one of them."""
    events = read_history(history)
    outcome = Outcome.of(events)
    running = Counter()
    for e in events:
        if e.kind == "received":
            running[e.pid, e.msg_id] += 1
        elif e.kind in ("finished", "failed"):
            running[e.pid, e.msg_id] -= 1
    dead_pids = {e.pid for e in events if e.kind == "killed"}
    busy = any(n > 0 for (pid, _), n in running.items() if pid not in dead_pids and _alive(pid))
    return not busy and all(m in outcome.acked or m in outcome.dead for m in msg_ids)


_alive = processes.pid_alive


def wait_settled(history: str | Path, msg_ids: Sequence[str], timeout: float = 120.0,
                 children: Sequence[processes.Child] = ()) -> None:
    """Wait until `settled`; when it does not come, say why: the messages left, what happened to the
    first of them, and any of `children` (the lab's producer and consumers) that has exited."""
    try:
        processes.wait_until(lambda: settled(history, msg_ids), timeout, interval=0.2,
                             what="every message acknowledged or dead-lettered")
    except TimeoutError:
        events = read_history(history)
        outcome = Outcome.of(events)
        left = [m for m in msg_ids if m not in outcome.acked and m not in outcome.dead]
        lines = [f"after {timeout:g} s, {len(left)} of {len(msg_ids)} messages are neither acknowledged nor "
                 f"dead-lettered{' (and a handler is still running)' if not left else ''}: {left[:8]}"]
        for msg_id in left[:2]:
            lines.append(f"what happened to {msg_id}:\n{timeline(events, msg_id)}")
        for child in children:
            if not child.alive():
                lines.append(f"{child.name} exited (code {child.popen.poll()}):\n{child.log_tail(8)}")
        raise TimeoutError("\n".join(lines)) from None


def timeline(events: Sequence[Event], msg_id: str | None = None, since: float | None = None) -> str:
    """One line per event (of one message, if given), in seconds from `since` (the first event)."""
    chosen = [e for e in events if msg_id is None or e.msg_id == msg_id or e.kind in ("started", "stopped", "killed")]

    def describe(e: Event) -> str:
        what = e.kind + (f" (delivery {e.deliveries})" if e.deliveries else "") + (f": {e.detail}" if e.detail else "")
        return f"{e.who:<10} {e.msg_id or '':<12} {what}"

    return eventlog.timeline(chosen, describe, since=since)


# -- dead letters and redrive ----------------------------------------------------------------------


@dataclass(frozen=True)
class DeadLetter:
    seq: int  # in the dead-letter stream
    subject: str  # where it was published first
    data: object
    reason: str  # permanent, max_deliveries
    error: str
    deliveries: int
    msg_id: str | None  # its original Nats-Msg-Id


def dead_letters(queue: WorkQueue, servers: broker.Servers) -> list[DeadLetter]:
    found = []
    for m in broker.messages(queue.dead_stream, url=servers):
        h = m.headers
        found.append(DeadLetter(m.seq, h.get("Original-Subject", ""), m.data, h.get("Dead-Reason", ""),
                                h.get("Dead-Error", ""), int(h.get("Dead-Deliveries", 0)), h.get("Original-Msg-Id")))
    return found


def redrive(queue: WorkQueue, servers: broker.Servers, seqs: Sequence[int] | None = None) -> list[int]:
    """Publish dead letters back to their subject, then delete them; return their new sequence numbers.

    Not with the original Nats-Msg-Id: within the duplicate window JetStream would take the redriven
    copy for a duplicate of the first publish and drop it. Each gets `redrive:<dead seq>` instead, so
    running redrive twice (after a crash half-way) still stores one copy.
    """
    async def work(js):
        moved = []
        info = await js.stream_info(queue.dead_stream)
        wanted = set(seqs) if seqs is not None else None
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            if wanted is not None and seq not in wanted:
                continue
            try:
                raw = await js.get_msg(queue.dead_stream, seq)
            except nats.js.errors.NotFoundError:
                continue
            headers = dict(raw.headers or {})
            original = {k: v for k, v in headers.items() if not k.startswith(("Nats-", "Dead-", "Original-"))}
            if headers.get("Original-Msg-Id"):
                original["Redriven-From-Msg-Id"] = headers["Original-Msg-Id"]
            ack = await js.publish(headers["Original-Subject"], raw.data or b"",
                                   headers={**original, MSG_ID: f"redrive:{queue.name}:{seq}"})
            await js.delete_msg(queue.dead_stream, seq)
            moved.append(ack.seq)
        return moved

    return broker.run(broker._using_jetstream(servers, work, 5.0), timeout=60)

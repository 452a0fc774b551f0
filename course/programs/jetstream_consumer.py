"""The consumer of lab 13's JetStream work queue: the loop one consumer process runs, and the dead-letter
router beside it.

    await Consumer(queue, handler, servers).run(stopping)   fetch as many messages as there are free
                                                             slots, run each, ack; bury what cannot succeed
    Task                    one delivery, as a handler sees it: data, deliveries, msg_id, in_progress()
    ConsumerSettings        concurrency, fetch timeout, whether to route max-deliveries advisories, drain
    dead_letter, route_advisory    a message copied to the dead-letter stream, by its consumer or the router

The queue's streams and consumer configuration, the publisher and the history are jetstream_queue.py;
the processes that run a Consumer are jetstream_run.py.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import nats
import nats.errors
import nats.js.errors

from course.infra import broker
from course.infra.broker import MSG_ID, TRANSIENT
from course.errors import PermanentError
from course.programs.jetstream_queue import ROUTER, WorkQueue, record

log = logging.getLogger("course.programs.jetstream_consumer")


class Task:
    """One delivery of a message to a handler.

    `data` is the payload (JSON decoded), `deliveries` is 1 on the first delivery, `msg_id` the
    publisher's Nats-Msg-Id (None if it set none). Call `in_progress()` during long work: it tells
    JetStream the message is still being worked on, and its AckWait starts again.
    """

    def __init__(self, msg, loop: asyncio.AbstractEventLoop, history: str | None, who: str):
        self._msg, self._loop, self._history, self._who = msg, loop, history, who
        meta = msg.metadata
        self.subject: str = msg.subject
        self.headers: dict[str, str] = dict(msg.headers or {})
        self.data = broker.decode(msg.data or b"")
        self.seq: int = meta.sequence.stream
        self.deliveries: int = meta.num_delivered
        self.msg_id: str | None = self.headers.get(MSG_ID)

    def in_progress(self) -> None:
        """Still working on it: restart this delivery's AckWait (an in-progress ack, +WPI)."""
        if _running_loop() is self._loop:
            self._loop.create_task(self._msg.in_progress())  # called from an async handler: do not block
        else:
            asyncio.run_coroutine_threadsafe(self._msg.in_progress(), self._loop).result(10)
        self._note("in_progress")

    def _note(self, kind: str, detail: str = "") -> None:
        record(self._history, who=self._who, kind=kind, seq=self.seq, msg_id=self.msg_id,
                deliveries=self.deliveries, detail=detail)

    def __repr__(self) -> str:
        return f"<Task {self.subject} seq={self.seq} delivery={self.deliveries} data={self.data!r:.60}>"


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a handler thread: no loop runs here
        return None


@dataclass
class ConsumerSettings:
    concurrency: int = 4  # messages handled at once, each in a thread (an async handler: on the loop)
    fetch_timeout_s: float = 0.5  # how long one fetch waits for messages (and how soon SIGTERM is noticed)
    route_dead_letters: bool = True  # also move max-deliveries advisories to the dead-letter stream
    go_subject: str | None = None  # wait for one message here before fetching (the benchmark's start gun)
    drain_timeout_s: float = 10.0  # on SIGTERM, how long running handlers may take to finish


class Consumer:
    """The loop of one consumer process: fetch as many messages as there are free slots, run each."""

    def __init__(self, queue: WorkQueue, handler: Callable, servers: list[str], *, who: str = "consumer",
                 history: str | None = None, settings: ConsumerSettings | None = None):
        self.queue, self.handler, self.servers = queue, handler, servers
        self.who, self.history = who, history
        self.settings = settings or ConsumerSettings()
        self.is_async = inspect.iscoroutinefunction(handler)
        self.counters = Counter()

    def _note(self, kind: str, **fields) -> None:
        record(self.history, who=self.who, kind=kind, **fields)

    async def run(self, stopping: asyncio.Event) -> int:
        loop = asyncio.get_running_loop()
        s = self.settings
        threads = ThreadPoolExecutor(s.concurrency, thread_name_prefix="handler") if not self.is_async else None
        nc = await broker.connect(self.servers, name=f"{self.who}:{os.getpid()}", max_reconnect_attempts=-1,
                                  reconnect_time_wait=0.1)
        js = nc.jetstream(timeout=2.0)
        try:
            if s.go_subject:
                await self._wait_for_go(nc, s.go_subject, stopping)
            self._note("started", detail=f"concurrency {s.concurrency}")
            jobs = [self._work(js, loop, threads, stopping)]
            if s.route_dead_letters:
                jobs.append(self._route(js, stopping))
            await asyncio.gather(*jobs)
            self._note("stopped", detail=", ".join(f"{k} {v}" for k, v in sorted(self.counters.items())))
            return 0
        finally:
            await nc.close()
            if threads is not None:
                threads.shutdown(wait=False, cancel_futures=True)

    async def _wait_for_go(self, nc, subject: str, stopping: asyncio.Event) -> None:
        go = asyncio.Event()

        async def on_go(msg):
            go.set()

        await nc.subscribe(subject, cb=on_go)
        await nc.flush()
        print("ready", flush=True)  # the parent waits for this line in our log before it fires the gun
        while not go.is_set() and not stopping.is_set():
            await asyncio.sleep(0.01)

    async def _pull(self, js, stream: str, durable: str, stopping: asyncio.Event):
        """Bind to a durable pull consumer, retrying while the cluster elects its leaders."""
        while not stopping.is_set():
            try:
                return await js.pull_subscribe_bind(durable=durable, stream=stream)
            except TRANSIENT:
                await asyncio.sleep(0.2)
        return None

    async def _work(self, js, loop, threads, stopping: asyncio.Event) -> None:
        s = self.settings
        sub = await self._pull(js, self.queue.name, self.queue.consumer, stopping)
        running: set[asyncio.Task] = set()
        slot_freed = asyncio.Event()
        while sub is not None and not stopping.is_set():
            free = s.concurrency - len(running)
            if free == 0:
                slot_freed.clear()
                await slot_freed.wait()
                continue
            try:
                messages = await sub.fetch(free, timeout=s.fetch_timeout_s)
            except nats.errors.TimeoutError:
                continue
            except TRANSIENT as error:  # a leader being elected, a node gone: try again shortly
                self.counters["fetch_errors"] += 1
                log.info("%s: fetch failed (%s); retrying", self.who, type(error).__name__)
                await asyncio.sleep(0.1)
                continue
            for msg in messages:
                job = asyncio.ensure_future(self._handle(js, msg, loop, threads))
                running.add(job)
                job.add_done_callback(lambda done: (running.discard(done), slot_freed.set()))
        if running:  # SIGTERM: finish what runs (a rolling deploy), then go
            await asyncio.wait(running, timeout=s.drain_timeout_s)

    async def _handle(self, js, msg, loop, threads) -> None:
        task = Task(msg, loop, self.history, self.who)
        task._note("received")
        self.counters["received"] += 1
        try:
            if self.is_async:
                await self.handler(task)
            else:
                await loop.run_in_executor(threads, self.handler, task)
        except Exception as error:  # a job's failure must not take the consumer down
            task._note("failed", f"{type(error).__name__}: {error}"[:300])
            self.counters["failed"] += 1
            await self._after_failure(js, task, msg, error)
            return
        task._note("finished")
        self.counters["succeeded"] += 1
        try:
            await msg.ack()
            task._note("acked")
        except TRANSIENT as error:  # the message comes back after its AckWait: at least once
            task._note("ack_lost", type(error).__name__)

    async def _after_failure(self, js, task: Task, msg, error: Exception) -> None:
        """Dead-letter it (permanent, or out of deliveries), or leave it for JetStream to redeliver.

        Leaving it unacknowledged is the retry: JetStream sends it again when this delivery's wait (its
        BackOff value) runs out. A bare nak would bring it back at once, hammering a provider that is down.
        """
        last = task.deliveries >= self.queue.max_deliver
        if not (isinstance(error, PermanentError) or last):
            task._note("left", f"back in {self.queue.wait_after(task.deliveries):g} s")
            return
        reason = "permanent" if isinstance(error, PermanentError) else "max_deliveries"
        try:
            await dead_letter(js, self.queue, msg.subject, msg.data, task.headers, task.seq, reason,
                              f"{type(error).__name__}: {error}", task.deliveries)
            await msg.term()  # no more deliveries: it is in the dead-letter stream now
            task._note("dead_lettered", reason)
        except TRANSIENT as failure:  # unsaid: the advisory (or the next delivery) gets it there
            task._note("dead_letter_failed", type(failure).__name__)

    async def _route(self, js, stopping: asyncio.Event) -> None:
        """Turn max-deliveries advisories into dead letters (a consumer died on a last delivery)."""
        sub = await self._pull(js, self.queue.advisory_stream, ROUTER, stopping)
        while sub is not None and not stopping.is_set():
            try:
                advisories = await sub.fetch(1, timeout=self.settings.fetch_timeout_s)
            except nats.errors.TimeoutError:
                continue
            except TRANSIENT:
                await asyncio.sleep(0.2)
                continue
            for advisory in advisories:
                try:
                    moved = await route_advisory(js, self.queue, json.loads(advisory.data))
                    if moved:
                        self._note("routed", seq=moved["seq"], msg_id=moved["msg_id"],
                                   deliveries=moved["deliveries"], detail="max-deliveries advisory -> dead letters")
                    await advisory.ack()
                except TRANSIENT:
                    pass  # not acked: the advisory comes back, and routing it again is harmless


async def dead_letter(js, queue: WorkQueue, subject: str, data: bytes, headers: dict, seq: int, reason: str,
                      error: str, deliveries: int) -> None:
    """Copy a message to the dead-letter stream, with why. Its Nats-Msg-Id is derived from the original's
    sequence, so doing it twice (the consumer and the router, or a retry) stores one copy."""
    kept = {k: v for k, v in headers.items() if not k.startswith("Nats-")}
    dead_headers = {**kept, MSG_ID: f"dead:{queue.name}:{seq}", "Dead-Reason": reason, "Dead-Error": error[:500],
                    "Dead-Deliveries": str(deliveries), "Original-Subject": subject, "Original-Seq": str(seq)}
    if headers.get(MSG_ID):
        dead_headers["Original-Msg-Id"] = headers[MSG_ID]
    await js.publish(f"{queue.prefix}_dead.{subject}", data or b"", headers=dead_headers)


async def route_advisory(js, queue: WorkQueue, advisory: dict) -> dict | None:
    """Move the message a max-deliveries advisory names to the dead-letter stream; None if it is gone."""
    if advisory.get("stream") != queue.name:
        return None
    seq, deliveries = advisory["stream_seq"], advisory.get("deliveries", queue.max_deliver)
    try:
        raw = await js.get_msg(queue.name, seq)
    except nats.js.errors.NotFoundError:
        return None  # already dead-lettered by its consumer, or acknowledged after all
    headers = dict(raw.headers or {})
    await dead_letter(js, queue, raw.subject, raw.data, headers, seq, "max_deliveries",
                      "its last delivery was never acknowledged: the consumer died, hung or lost its connection",
                      deliveries)
    try:
        await js.delete_msg(queue.name, seq)
    except nats.js.errors.NotFoundError:
        pass
    return {"seq": seq, "msg_id": headers.get(MSG_ID), "deliveries": deliveries}

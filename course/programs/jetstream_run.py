"""Lab 13's consumers and producers, each in a process of its own, so a lab can kill them.

    spawn_consumers(queue, handler, servers)   consumer processes (a handler may be notebook code)
    spawn_producer(servers, subject, count)    a producer process that publishes at a steady rate
    wait_ready(children)                       until every consumer says it is connected and waiting

Their events go to a history file (jetstream_queue.read_history reads it).

    python -m course.programs.jetstream_run consume|produce SPEC WHO    (what the spawn_ functions start)
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence


from course.infra import broker, eventlog, nats_server, processes
from course.infra.broker import TRANSIENT
from course.errors import InvalidArgument
from course.programs.jetstream_consumer import Consumer, ConsumerSettings
from course.programs.jetstream_queue import Publisher, WorkQueue, publish_with_retry, record


def spawn_consumers(queue: WorkQueue, handler: Callable, servers: broker.Servers, n: int = 2, *,
                    history: str | None = None, settings: ConsumerSettings | None = None,
                    name: str = "consumer", env: dict[str, str] | None = None,
                    kept: Sequence[eventlog.Kept] = (), pass_fds: Sequence[int] = ()) -> list[processes.Child]:
    """Start `n` consumer processes running `handler(task)` (sync or async; notebook code travels by value).

    Their events go to `history` (see read_history). Stop them with child.terminate() or child.kill().
    A check that judges them keeps its histories itself (`kept`: `history`'s Kept, and any other its
    handler writes): each consumer writes into each through a pipe of its own, every line stamped with
    the consumer's name (`who`) and the pid started here. `pass_fds` stay open in each (what the
    handler was given: a check's ticket).
    """
    if not callable(handler):
        raise InvalidArgument(f"handler must be a function handler(task); got {handler!r}.")
    spec = processes.pickle_for_child({"queue": queue, "handler": handler, "servers": broker.server_list(servers),
                       "history": history, "settings": settings or ConsumerSettings()})
    children = []
    for i in range(n):
        who = f"{name}{i}"
        feeds = eventlog.feeding(kept, who=who)
        children.append(processes.python(who, __name__, "consume", str(spec), who,
                                         env={**nats_server.handed(broker.server_list(servers)), **(env or {}), **feeds.env},
                                         pass_fds=[*feeds.fds, *pass_fds]))
        feeds.started(children[-1].pid)
    return children


def spawn_producer(servers: broker.Servers, subject: str, count: int, *, rate_per_s: float = 50.0,
                   id_prefix: str = "msg-", history: str | None = None, publish_timeout_s: float = 1.0,
                   name: str = "producer") -> processes.Child:
    """Start a producer process: `count` messages {"n": i} at a steady rate, each with Nats-Msg-Id
    f"{id_prefix}{i}", each retried (same id) until JetStream acknowledges it."""
    spec = {"servers": broker.server_list(servers), "subject": subject, "count": count,
            "rate_per_s": rate_per_s, "id_prefix": id_prefix, "history": history,
            "publish_timeout_s": publish_timeout_s}
    return processes.python(name, __name__, "produce", str(processes.pickle_for_child(spec)), name,
                            env=nats_server.handed(broker.server_list(servers)))


def wait_ready(children: Sequence[processes.Child], timeout: float = 60.0) -> None:
    """Wait until every consumer started with a go_subject says it is connected and waiting."""
    def all_ready():
        for child in children:
            if not child.alive():
                raise RuntimeError(f"{child.name} exited (code {child.popen.poll()}):\n{child.log_tail(10)}")
        return all("ready" in child.log() for child in children)

    processes.wait_until(all_ready, timeout, interval=0.02, what="the consumers to be ready")


def _consume_main(spec: dict, who: str) -> int:
    consumer = Consumer(spec["queue"], spec["handler"], spec["servers"], who=who, history=spec["history"],
                        settings=spec["settings"])

    async def main() -> int:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stopping.set)
        return await consumer.run(stopping)

    return asyncio.run(main())


def _produce_main(spec: dict, who: str) -> int:
    history = spec["history"]
    publisher = Publisher(spec["servers"], timeout=spec["publish_timeout_s"], name=who)
    record(history, who=who, kind="started", detail=f"{spec['count']} messages at {spec['rate_per_s']:g}/s")
    attempt_of: dict[str, int] = defaultdict(int)

    def one_attempt(subject, payload, *, msg_id):
        attempt_of[msg_id] += 1
        try:
            return publisher.publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            record(history, who=who, kind="publish_failed", msg_id=msg_id,
                    detail=f"attempt {attempt_of[msg_id]}: {type(error).__name__}")
            raise

    interval = 1.0 / spec["rate_per_s"]
    next_at = time.monotonic()
    for n in range(spec["count"]):
        msg_id = f"{spec['id_prefix']}{n}"
        ack = publish_with_retry(one_attempt, spec["subject"], {"n": n}, msg_id, give_up_after_s=120)
        record(history, who=who, kind="published", seq=ack.seq, msg_id=msg_id,
                detail=f"attempts {attempt_of[msg_id]}" + (", duplicate" if ack.duplicate else ""))
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))
    record(history, who=who, kind="stopped")
    publisher.close()
    return 0


def main(argv: list[str]) -> int:
    command, spec_path, who = argv[0], argv[1], argv[2]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    spec = processes.unpickle(spec_path)
    code = {"consume": _consume_main, "produce": _produce_main}[command](spec, who)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # a handler thread that hangs (a call without a timeout) must not keep us alive


if __name__ == "__main__":
    main(sys.argv[1:])



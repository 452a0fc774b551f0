"""Lab 13: a log, a job queue and a work queue, side by side, on the same failing messages.

The material: Kafka "is a log rather than a job queue", "no per-message retry or delay". No Kafka
server runs here. A JetStream stream with its default *limits* retention keeps every message until its
age or size limits say otherwise, whatever any reader did with it; a reader that goes through it by
position and keeps its own committed offset (a row in PostgreSQL: its consumer group's position) reads
it the way a Kafka consumer reads a partition. That is enough for the question asked here: what each
does when one message fails.

Ten messages, `{"n": 1}` to `{"n": 10}`. Message 4 fails on its first two tries (a provider's blip);
message 7 fails every time (a poison message). Four readers:

    log, retry in place     a log reader can only move its offset forward: to retry 7 it must stay on 7,
                            and 8, 9, 10 wait behind it (the partition is blocked)
    log, skip and commit    or it commits past the failure: 4 and 7 are never done by this reader (a
                            dead-letter topic of its own is the usual patch)
    job queue (Postgres)    each job has its own attempts, its own backoff and its own dead letter;
                            8, 9, 10 are done while 4 and 7 wait for their retries
    JetStream work queue    the same, kept by the server: BackOff per delivery, MaxDeliver, our dead
                            letters

and, after the run, what each store still holds, and what a new reader can read from the start.

    outcomes = log_vs_queue.compare("lab13", cluster.urls)
    print(log_vs_queue.table(outcomes))
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import psycopg

from course.core import queue
from course.infra import broker, db
from course.programs import jetstream_queue as jq
from course.programs import jetstream_run

MESSAGES = 10
FLAKY, POISON = 4, 7
FLAKY_FAILURES = 2
MAX_ATTEMPTS = 4
BACKOFF_S = (0.2, 0.4, 0.8)  # the wait after the 1st, 2nd, 3rd failure: the same for every reader here


class Refused(Exception):
    """The handler's failure: a provider that said no."""


def handle(n: int, attempt: int) -> None:
    """The work: message FLAKY fails on its first two attempts, message POISON on every one."""
    if n == POISON or (n == FLAKY and attempt <= FLAKY_FAILURES):
        raise Refused(f"message {n}, attempt {attempt}: the provider said 503")


def handle_task(task) -> None:
    """The same work, as a JetStream consumer's handler."""
    handle(task.data["n"], task.deliveries)


@dataclass
class Outcome:
    reader: str
    attempts: dict[int, int] = field(default_factory=dict)  # message -> tries
    done_at: dict[int, float] = field(default_factory=dict)  # message -> seconds after the start
    dead: list[int] = field(default_factory=list)  # messages put aside by the reader (dead letters)
    left_in_store: int = 0  # messages the store still holds when the reader is done
    replayable: int = 0  # messages a new reader could read from the beginning
    stuck_at: int | None = None  # the message a reader stopped on, blocked

    @property
    def not_done(self) -> list[int]:
        return [n for n in range(1, MESSAGES + 1) if n not in self.done_at]


# -- the log --------------------------------------------------------------------------------------------


def _publish_log(stream: str, servers) -> None:
    broker.delete_stream(stream, url=servers)
    subject = f"{stream.lower()}.orders"
    broker.ensure_stream(stream, [f"{stream.lower()}.>"], url=servers)  # limits retention: kept after reading
    for n in range(1, MESSAGES + 1):
        broker.publish(subject, {"n": n}, msg_id=f"log-{n}", stream=stream, url=servers)


def _offsets(conn: psycopg.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS log_offsets (consumer_group text PRIMARY KEY, next_seq bigint NOT NULL)")


def read_log(schema: str, stream: str, servers, *, group: str, on_failure: str, stuck_after_s: float = 3.0) -> Outcome:
    """Read the stream from the group's committed offset. on_failure: "retry" (stay on the message,
    waiting BACKOFF_S between tries, and stop as stuck after `stuck_after_s`) or "skip" (commit past it)."""
    if on_failure not in ("retry", "skip"):
        raise ValueError(f"on_failure is 'retry' or 'skip', not {on_failure!r}")
    outcome = Outcome(f"log, {'retry in place' if on_failure == 'retry' else 'skip and commit'}")
    log = broker.messages(stream, url=servers)  # the log is immutable: read it once, by position
    by_seq = {m.seq: m for m in log}
    start = time.monotonic()
    with db.connect(schema) as conn:
        _offsets(conn)
        conn.execute("INSERT INTO log_offsets VALUES (%s, %s) ON CONFLICT (consumer_group) DO NOTHING",
                     [group, log[0].seq if log else 1])
        while True:
            [seq] = conn.execute("SELECT next_seq FROM log_offsets WHERE consumer_group = %s", [group]).fetchone()
            if seq not in by_seq:
                break
            n = by_seq[seq].data["n"]
            tries, first_try = 0, time.monotonic()
            while True:
                tries += 1
                try:
                    handle(n, tries)
                    outcome.done_at[n] = time.monotonic() - start
                    break
                except Refused:
                    if on_failure == "skip":
                        break
                    if time.monotonic() - first_try > stuck_after_s:
                        outcome.stuck_at = n
                        break
                    time.sleep(BACKOFF_S[min(tries, len(BACKOFF_S)) - 1])
            outcome.attempts[n] = tries
            if outcome.stuck_at is not None:
                break
            conn.execute("UPDATE log_offsets SET next_seq = %s WHERE consumer_group = %s", [seq + 1, group])
    outcome.left_in_store = broker.count_messages(stream, url=servers)
    outcome.replayable = outcome.left_in_store  # a new group starts at the first message still kept
    return outcome


# -- the job queue in PostgreSQL -----------------------------------------------------------------------------


def run_job_queue(schema: str) -> Outcome:
    """The course's queue, one worker loop here: claim, handle, ack or fail with the backoff above."""
    outcome = Outcome("job queue (Postgres)")
    with db.connect(schema) as conn:
        queue.install(conn)
        conn.execute("DELETE FROM jobs WHERE queue = 'log_vs_queue'")
        ids = queue.enqueue_many(conn, "order", [{"n": n} for n in range(1, MESSAGES + 1)], queue="log_vs_queue",
                                 max_attempts=MAX_ATTEMPTS)
        start = time.monotonic()
        deadline = start + 30
        while time.monotonic() < deadline:
            left = conn.execute("SELECT count(*) FROM jobs WHERE queue = 'log_vs_queue'").fetchone()[0]
            if left == 0:
                break
            for job in queue.claim(conn, queue="log_vs_queue", limit=MESSAGES, lease_s=30):
                n = job.payload["n"]
                outcome.attempts[n] = job.attempts
                try:
                    handle(n, job.attempts)
                except Refused as error:
                    queue.fail(conn, job, error, backoff=lambda attempt: BACKOFF_S[min(attempt, len(BACKOFF_S)) - 1])
                else:
                    queue.ack(conn, job)
                    outcome.done_at[n] = time.monotonic() - start
            time.sleep(0.02)
        dead = conn.execute("SELECT payload->>'n' FROM dead_jobs WHERE id = ANY(%s)", [ids]).fetchall()
        outcome.dead = sorted(int(n) for (n,) in dead)
        outcome.left_in_store = conn.execute("SELECT count(*) FROM jobs WHERE id = ANY(%s)", [ids]).fetchone()[0]
    outcome.replayable = outcome.left_in_store
    return outcome


# -- the JetStream work queue ---------------------------------------------------------------------------------


def run_work_queue(servers, name: str = "LAB13_WQ") -> Outcome:
    """A JetStream work queue (BackOff, MaxDeliver), one consumer process running `handle_task`."""
    outcome = Outcome("JetStream work queue")
    work = jq.WorkQueue(name, replicas=1, backoff_s=BACKOFF_S, max_deliver=MAX_ATTEMPTS)
    jq.reset(work, servers)
    history = jq.new_history()
    consumers = jetstream_run.spawn_consumers(work, handle_task, servers, 1, history=history, name="wq-consumer")
    try:
        start = time.time()
        with jq.Publisher(servers) as publisher:
            for n in range(1, MESSAGES + 1):
                publisher.publish(work.subject("order"), {"n": n}, msg_id=f"wq-{n}")
        ids = [f"wq-{n}" for n in range(1, MESSAGES + 1)]
        jq.wait_settled(history, ids, timeout=60, children=consumers)
    finally:
        for child in consumers:
            child.terminate()
    events = jq.read_history(history)
    result = jq.Outcome.of(events)
    for n in range(1, MESSAGES + 1):
        msg = f"wq-{n}"
        outcome.attempts[n] = result.deliveries.get(msg, 0)
        acked = [e.t for e in events if e.msg_id == msg and e.kind == "acked"]
        if acked:
            outcome.done_at[n] = acked[0] - start
    outcome.dead = sorted(int(m.split("-")[1]) for m in result.dead)
    outcome.left_in_store = broker.count_messages(name, url=servers)
    outcome.replayable = outcome.left_in_store
    return outcome


def compare(schema: str, servers, *, log_stream: str = "LAB13_LOG", work_queue: str = "LAB13_WQ") -> list[Outcome]:
    """The four readers, one after the other, on the same ten messages."""
    _publish_log(log_stream, servers)
    with db.connect(schema) as conn:
        _offsets(conn)
        conn.execute("DELETE FROM log_offsets WHERE consumer_group IN ('retrying', 'skipping')")
    return [read_log(schema, log_stream, servers, group="retrying", on_failure="retry"),
            read_log(schema, log_stream, servers, group="skipping", on_failure="skip"),
            run_job_queue(schema), run_work_queue(servers, work_queue)]


def table(outcomes: list[Outcome]) -> str:
    """One row per reader: what happened to the flaky and the poison message, and to the rest."""
    def fate(o: Outcome, n: int) -> str:
        if n in o.done_at:
            return f"done (try {o.attempts[n]})"
        if n in o.dead:
            return f"dead letter ({o.attempts[n]} tries)"
        if o.stuck_at == n:
            return "stuck: retried in place"
        return "never done" if n in o.attempts else "never reached"

    after = [n for n in range(POISON + 1, MESSAGES + 1)]
    lines = [f"{'reader':<24}{'message 4 (fails twice)':<26}{'message 7 (always fails)':<26}"
             f"{'8 to 10':<16}{'left in the store':<19}a new reader can read"]
    for o in outcomes:
        rest = ("all done" if all(n in o.done_at for n in after)
                else "never reached" if not any(n in o.attempts for n in after) else "some")
        lines.append(f"{o.reader:<24}{fate(o, FLAKY):<26}{fate(o, POISON):<26}{rest:<16}"
                     f"{o.left_in_store:<19}{o.replayable} messages")
    return "\n".join(lines)

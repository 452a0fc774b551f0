"""A model-based test of the reference queue: random interleavings of every operation, checked step by step
against a small in-memory model of what the queue promises.

Hypothesis drives a state machine: enqueue (delays, unique keys, priorities, one or many), claim (one or a
batch, on any of three connections, and one claim while another connection's claim still holds its rows
locked), ack, ack_many, extend_lease, fail (transient and permanent), bury, redrive, time passing, a real
worker running jobs of its own queue, and PostgreSQL restarting (fast or immediate) while that worker's
handler thread sits idle with its connection. After every step the whole database is compared with the model:

  * each job is in exactly one of ready / leased / scheduled / dead / done;
  * an operation with a stale lease (the job was claimed again, retried, acked or buried since) changes
    nothing at all;
  * attempts never decrease and never pass max_attempts;
  * a job is dead-lettered only at max_attempts or on a permanent error (or by an explicit bury);
  * stats() agrees with the model, lateness included;
  * a job the worker runs and whose handler succeeds is done, at any point of the sequence: with
    max_attempts=1, an attempt lost to an earlier restart would be a dead letter the model does not have.

The test runs on a PostgreSQL of its own (the shared one is never restarted).

Time is moved, not waited for: "time passes" shifts every moment stored in the jobs table back by the same
amount, which to every statement that compares with now() is the clock moving forward. Delays, leases and
backoffs are multiples of 100 s and the shifts fall between them, so the few real seconds a run takes
never decide anything.

Bounded and seeded for `make test` (derandomized, well under a minute). A longer run:

    COURSE_MODEL_EXAMPLES=2000 COURSE_MODEL_STEPS=80 .venv/bin/python -m pytest tests/core/test_queue_model.py
    COURSE_MODEL_SEED=123 ...        a different random sequence instead of the fixed one
    COURSE_MODEL_SECONDS=600 ...     batches of EXAMPLES runs (seed, seed + 1, ...) until 10 minutes are up

`make soak` is the last one, from a random seed it prints first (SOAK_S=60 for a minute).
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test  # noqa: E402

import psycopg  # noqa: E402

from course.core import queue  # noqa: E402
from course.core.worker import Registry, Settings, Worker  # noqa: E402
from course.infra.private_server import PrivateServer  # noqa: E402
from course.infra.processes import wait_until  # noqa: E402

QUEUES = ("a", "b")
DELAYS = (0, 100, 300)  # seconds; every moment the model compares is a multiple of 100 s ...
LEASES = (100, 200)
BACKOFF_S = 100.0
SHIFTS = (50, 150, 250, 1050)  # ... and time moves by amounts that fall between them
KEYS = ("k1", "k2")
WORKER_QUEUE = "w"  # served by a real worker in this process; the claim rules never touch it
RESTARTS_PER_RUN = 1  # each costs a second or so

EXAMPLES = int(os.environ.get("COURSE_MODEL_EXAMPLES", "40"))
STEPS = int(os.environ.get("COURSE_MODEL_STEPS", "40"))
SEED = os.environ.get("COURSE_MODEL_SEED")
BUDGET_S = float(os.environ.get("COURSE_MODEL_SECONDS", "0"))  # 0: one batch of EXAMPLES runs

RAN = Counter()  # rule -> times run, over the whole test (printed at the end)


@dataclass
class MJob:
    id: int
    queue: str
    priority: int
    max_attempts: int
    unique_key: str | None
    run_at: tuple  # (virtual seconds, step number): ties in time go to the statement that ran first
    due: float  # when it was first due (virtual seconds): lateness counts from here
    attempts: int = 0
    lease_token: object = None  # the current lease token, or None


@dataclass
class MDead:
    id: int
    queue: str
    priority: int
    max_attempts: int
    unique_key: str | None
    attempts: int
    reason: str


@dataclass
class Model:
    now: float = 0.0
    step: int = 0
    jobs: dict[int, MJob] = field(default_factory=dict)
    dead: dict[int, MDead] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)

    def state(self, job: MJob) -> str:
        if job.run_at[0] <= self.now:
            return "ready"  # waiting, or left behind by a lease that ran out
        return "leased" if job.lease_token is not None else "scheduled"

    def current(self, handle: queue.Job) -> bool:
        job = self.jobs.get(handle.id)
        return job is not None and job.lease_token == handle.lease_token

    def ready_in(self, queue_name: str) -> list[MJob]:
        ready = [j for j in self.jobs.values() if j.queue == queue_name and self.state(j) == "ready"]
        return sorted(ready, key=lambda j: (-j.priority, j.run_at, j.id))

    def to_dead(self, job: MJob, reason: str) -> None:
        del self.jobs[job.id]
        self.dead[job.id] = MDead(job.id, job.queue, job.priority, job.max_attempts, job.unique_key,
                                  min(job.attempts, job.max_attempts), reason)


def check_against(conn, model: Model, seen_attempts: dict[int, int]) -> None:
    rows = conn.execute("""SELECT id, queue, priority, attempts, max_attempts, lease_token, unique_key,
                                  run_at <= now() AS visible
                           FROM jobs ORDER BY id""").fetchall()
    dead = conn.execute("SELECT id, attempts, max_attempts, reason FROM dead_jobs ORDER BY id").fetchall()
    db_jobs = {r[0]: r for r in rows}
    db_dead = {r[0]: r for r in dead}
    # exactly one place each
    assert not set(db_jobs) & set(db_dead), "a job in both tables"
    assert set(db_jobs) == set(model.jobs), (sorted(db_jobs), sorted(model.jobs))
    assert set(db_dead) == set(model.dead), (sorted(db_dead), sorted(model.dead))
    assert not (set(db_jobs) | set(db_dead)) & model.done, "a done job came back"
    for job_id, (_, q, priority, attempts, max_attempts, token, key, visible) in db_jobs.items():
        m = model.jobs[job_id]
        assert (q, priority, attempts, max_attempts, token, key) == (
            m.queue, m.priority, m.attempts, m.max_attempts, m.lease_token, m.unique_key), job_id
        assert visible == (model.state(m) == "ready"), (job_id, model.state(m))
        assert 0 <= attempts <= max_attempts, (job_id, attempts, max_attempts)
        assert attempts >= seen_attempts.get(job_id, 0), f"job {job_id}'s attempts went down"
        seen_attempts[job_id] = attempts
    for job_id, (_, attempts, max_attempts, reason) in db_dead.items():
        m = model.dead[job_id]
        assert (attempts, reason) == (m.attempts, m.reason), job_id
        assert reason in {"permanent", "buried"} or (reason == "max_attempts" and attempts == max_attempts), \
            (job_id, reason, attempts, max_attempts)
        assert attempts <= max_attempts
    # stats agree
    stats = queue.stats(conn)
    assert stats.dead_letters == len(model.dead)
    for name in QUEUES:
        states = Counter(model.state(j) for j in model.jobs.values() if j.queue == name)
        row = stats.queue(name)
        assert (row.ready, row.in_flight, row.scheduled) == (states["ready"], states["leased"], states["scheduled"]), name
        ready = [j for j in model.jobs.values() if j.queue == name and model.state(j) == "ready"]
        late = max((model.now - j.due for j in ready), default=0.0)
        assert row.oldest_ready_age_s == pytest.approx(late, abs=40), name  # 40 s: real time that passed


def snapshot(conn):
    return (conn.execute("SELECT * FROM jobs ORDER BY id").fetchall(),
            conn.execute("SELECT id, attempts, reason, error FROM dead_jobs ORDER BY id").fetchall())


def touch(job, conn):
    """The worker's one handler: it uses its thread's connection, as most real handlers do."""
    conn.execute("SELECT %s::bigint", [job.id])


def make_machine(server: PrivateServer, schema: str):
    conninfo = server.conninfo(schema)
    registry = Registry()
    registry.handler("touch")(touch)

    class QueueMachine(RuleBasedStateMachine):
        def __init__(self):
            super().__init__()
            self.connect()
            self.conn.execute("TRUNCATE jobs, dead_jobs")
            self.model = Model()
            self.handles: list[queue.Job] = []  # every Job a claim ever returned, current or stale
            self.seen_attempts: dict[int, int] = {}
            self.payload_n = 0
            self.worker: Worker | None = None
            self.worker_thread: threading.Thread | None = None
            self.restarts = 0

        def connect(self):
            self.conns = [psycopg.connect(conninfo, autocommit=True) for _ in range(3)]
            self.conn = self.conns[0]

        def teardown(self):
            if self.worker is not None:
                self.worker.stop()
                self.worker_thread.join(60)
                assert not self.worker_thread.is_alive(), "the worker did not stop"
            for conn in self.conns:
                conn.close()

        def tick(self, rule_name: str) -> tuple:
            RAN[rule_name] += 1
            self.model.step += 1
            return (self.model.now, self.model.step)

        # -- producing --

        @rule(q=st.sampled_from(QUEUES), priority=st.sampled_from((0, 1, 5)), delay_s=st.sampled_from(DELAYS),
              max_attempts=st.integers(1, 3), key=st.none() | st.sampled_from(KEYS), c=st.integers(0, 2))
        def enqueue(self, q, priority, delay_s, max_attempts, key, c):
            at = self.tick("enqueue")
            job_id = queue.enqueue(self.conns[c], "t", {"n": 0}, queue=q, priority=priority, delay_s=delay_s,
                                   max_attempts=max_attempts, unique_key=key)
            held = key is not None and any(j.unique_key == key for j in self.model.jobs.values())
            if held:
                assert job_id is None, "a unique key held by an unfinished job admitted a second job"
                return
            assert job_id is not None
            self.model.jobs[job_id] = MJob(job_id, q, priority, max_attempts, key, (at[0] + delay_s, at[1]),
                                           at[0] + delay_s)

        @rule(q=st.sampled_from(QUEUES), n=st.integers(1, 4), delay_s=st.sampled_from(DELAYS),
              keys=st.lists(st.none() | st.sampled_from(KEYS), min_size=4, max_size=4))
        def enqueue_many(self, q, n, delay_s, keys):
            at = self.tick("enqueue_many")
            payloads = []
            for _ in range(n):
                self.payload_n += 1
                payloads.append({"n": self.payload_n})
            ids = queue.enqueue_many(self.conn, "t", payloads, queue=q, delay_s=delay_s, unique_keys=keys[:n])
            held = {j.unique_key for j in self.model.jobs.values() if j.unique_key is not None}
            expected = []
            for payload, key in zip(payloads, keys[:n]):
                if key is None or key not in held:
                    expected.append(payload["n"])
                    if key is not None:
                        held.add(key)
            stored = dict(self.conn.execute("SELECT (payload->>'n')::int, id FROM jobs WHERE id = ANY(%s)",
                                            [ids]).fetchall())
            assert sorted(stored) == expected, (stored, expected)
            for payload, key in zip(payloads, keys[:n]):
                if payload["n"] in stored:
                    job_id = stored[payload["n"]]
                    self.model.jobs[job_id] = MJob(job_id, q, 0, queue.MAX_ATTEMPTS, key,
                                                   (at[0] + delay_s, at[1]), at[0] + delay_s)

        # -- consuming --

        def model_claim(self, q: str, limit: int, lease_s: float, at: tuple) -> list[int]:
            while True:
                taken = self.model.ready_in(q)[:limit]
                runnable = []
                for job in taken:
                    job.attempts += 1
                    job.run_at = (at[0] + lease_s, at[1])
                    job.lease_token = "?"  # the token the database chose; filled in from what claim returned
                    if job.attempts > job.max_attempts:
                        self.model.to_dead(job, "max_attempts")
                    else:
                        runnable.append(job.id)
                if runnable or not taken:
                    return runnable

        def took(self, jobs: list[queue.Job], expected: list[int]) -> None:
            # The most urgent jobs (priority, then run_at, then id), and in that order within the batch.
            assert [j.id for j in jobs] == expected, ([j.id for j in jobs], expected)
            for job in jobs:
                m = self.model.jobs[job.id]
                assert job.attempts == m.attempts and job.attempts <= job.max_attempts
                m.lease_token = job.lease_token
                self.handles.append(job)

        @rule(q=st.sampled_from(QUEUES), limit=st.integers(1, 3), lease_s=st.sampled_from(LEASES),
              c=st.integers(0, 2))
        def claim(self, q, limit, lease_s, c):
            at = self.tick("claim")
            jobs = queue.claim(self.conns[c], q, limit=limit, lease_s=lease_s)
            self.took(jobs, self.model_claim(q, limit, lease_s, at))

        @rule(q=st.sampled_from(QUEUES), limit=st.integers(1, 2), lease_s=st.sampled_from(LEASES))
        def claim_while_another_claim_holds_its_rows(self, q, limit, lease_s):
            """Connection 1 claims inside a transaction; before it commits, connection 2 claims too:
            SKIP LOCKED must hand connection 2 the next jobs, never the same ones."""
            at = self.tick("claim_interleaved")
            first, second = self.conns[1], self.conns[2]
            with first.transaction():
                mine = queue.claim(first, q, limit=limit, lease_s=lease_s)
                theirs = queue.claim(second, q, limit=limit, lease_s=lease_s)
            expected_mine = self.model_claim(q, limit, lease_s, at)
            self.took(mine, expected_mine)
            # The second claim's now() is later than the first's (the first's transaction began earlier):
            # a tie in model time goes to the first, as it does in the database.
            self.took(theirs, self.model_claim(q, limit, lease_s, (at[0], at[1] + 0.5)))
            assert not {j.id for j in mine} & {j.id for j in theirs}

        def has(self, *, current: bool) -> bool:
            return any(self.model.current(h) == current for h in self.handles)

        def pick(self, data, *, current: bool):
            pool = [h for h in self.handles if self.model.current(h) == current]
            return data.draw(st.sampled_from(pool)) if pool else None

        @precondition(lambda self: self.has(current=True))
        @rule(data=st.data())
        def ack(self, data):
            handle = self.pick(data, current=True)
            if handle is None:
                return
            self.tick("ack")
            assert queue.ack(self.conn, handle) is True
            del self.model.jobs[handle.id]
            self.model.done.add(handle.id)

        @precondition(lambda self: self.handles)
        @rule(data=st.data())
        def ack_many(self, data):
            if not self.handles:
                return
            chosen = data.draw(st.lists(st.sampled_from(self.handles), min_size=1, max_size=4))
            self.tick("ack_many")
            expected = {h.id for h in chosen if self.model.current(h)}
            assert queue.ack_many(self.conns[1], chosen) == expected
            for job_id in expected:
                del self.model.jobs[job_id]
                self.model.done.add(job_id)

        @precondition(lambda self: self.has(current=True))
        @rule(data=st.data(), lease_s=st.sampled_from(LEASES))
        def extend_lease(self, data, lease_s):
            handle = self.pick(data, current=True)
            if handle is None:
                return
            at = self.tick("extend_lease")
            assert queue.extend_lease(self.conn, handle, lease_s) is not None
            self.model.jobs[handle.id].run_at = (at[0] + lease_s, at[1])

        @precondition(lambda self: self.has(current=True))
        @rule(data=st.data(), permanent=st.booleans(), message=st.sampled_from(
            ["503", "", "bad\x00byte", "\N{GRINNING FACE}" * 2100]))
        def fail(self, data, permanent, message):
            handle = self.pick(data, current=True)
            if handle is None:
                return
            at = self.tick("fail")
            outcome = queue.fail(self.conns[2], handle, RuntimeError(message), permanent=permanent,
                                 backoff=lambda attempt: BACKOFF_S)
            job = self.model.jobs[handle.id]
            if permanent:
                assert outcome == queue.Dead("permanent")
                self.model.to_dead(job, "permanent")
            elif job.attempts >= job.max_attempts:
                assert outcome == queue.Dead("max_attempts")
                self.model.to_dead(job, "max_attempts")
            else:
                assert outcome == queue.Retry(BACKOFF_S)
                job.run_at = (at[0] + BACKOFF_S, at[1])
                job.lease_token = None

        @precondition(lambda self: self.has(current=True))
        @rule(data=st.data())
        def bury(self, data):
            handle = self.pick(data, current=True)
            if handle is None:
                return
            self.tick("bury")
            assert queue.bury(self.conn, handle, "buried", "a person decided") is True
            self.model.to_dead(self.model.jobs[handle.id], "buried")

        @precondition(lambda self: self.has(current=False))
        @rule(data=st.data(), op=st.sampled_from(["ack", "ack_many", "extend_lease", "fail", "fail_permanent",
                                                  "bury", "retry"]))
        def stale_lease_changes_nothing(self, data, op):
            handle = self.pick(data, current=False)
            if handle is None:
                return
            self.tick(f"stale_{op}")
            before = snapshot(self.conn)
            conn = self.conns[data.draw(st.integers(0, 2))]
            result = {
                "ack": lambda: queue.ack(conn, handle),
                "ack_many": lambda: queue.ack_many(conn, [handle]),
                "extend_lease": lambda: queue.extend_lease(conn, handle, 100),
                "fail": lambda: queue.fail(conn, handle, "late", backoff=lambda attempt: BACKOFF_S),
                "fail_permanent": lambda: queue.fail(conn, handle, "late", permanent=True),
                "bury": lambda: queue.bury(conn, handle, "buried", "late"),
                "retry": lambda: queue.retry(conn, handle, 0, "late"),
            }[op]()
            assert result in (False, None, set()), (op, result)
            assert snapshot(self.conn) == before, f"a {op} with a stale lease changed the database"

        # -- dead letters --

        @precondition(lambda self: self.model.dead)
        @rule(data=st.data(), how=st.sampled_from(["all", "ids", "queue"]))
        def redrive(self, data, how):
            at = self.tick("redrive")
            if how == "ids":
                ids = data.draw(st.lists(st.sampled_from(sorted(self.model.dead) or [0]), max_size=3))
                chosen = [self.model.dead[i] for i in ids if i in self.model.dead]
                moved = queue.redrive(self.conn, ids)
            elif how == "queue":
                name = data.draw(st.sampled_from(QUEUES))
                chosen = [d for d in self.model.dead.values() if d.queue == name]
                moved = queue.redrive(self.conn, queue=name)
            else:
                chosen = list(self.model.dead.values())
                moved = queue.redrive(self.conn)
            held = {j.unique_key for j in self.model.jobs.values() if j.unique_key is not None}
            newest = {}  # of several dead jobs with one key, only the newest comes back
            for d in chosen:
                if d.unique_key is not None and d.unique_key not in held:
                    newest[d.unique_key] = max(newest.get(d.unique_key, 0), d.id)
            expected = {d.id for d in chosen if d.unique_key is None or newest.get(d.unique_key) == d.id}
            assert set(moved) == expected, (moved, expected)
            for job_id in expected:
                d = self.model.dead.pop(job_id)
                self.model.jobs[job_id] = MJob(job_id, d.queue, d.priority, d.max_attempts, d.unique_key,
                                               at, at[0])
                self.seen_attempts.pop(job_id, None)  # a redriven job starts again from 0, on purpose

        # -- a real worker, and the database restarting under it --

        @rule(n=st.integers(1, 3))
        def worker_runs(self, n):
            """Jobs for the worker, each with one attempt: a handler that succeeds must leave each one done,
            whatever happened to the database between this step and the last."""
            self.tick("worker_runs")
            if self.worker is None:
                # One handler thread: whichever job comes first runs on the connection it kept from before.
                self.worker = Worker(conninfo, registry, Settings(queue=WORKER_QUEUE, concurrency=1, lease_s=600,
                                                                  poll_interval_s=0.1))
                self.worker_thread = threading.Thread(target=self.worker.run, name="model-worker", daemon=True)
                self.worker_thread.start()
            ids = queue.enqueue_many(self.conn, "touch", [{"n": i} for i in range(n)], queue=WORKER_QUEUE,
                                     max_attempts=1)
            left = "SELECT count(*) FROM jobs WHERE id = ANY(%s)"
            wait_until(lambda: self.conn.execute(left, [ids]).fetchone()[0] == 0, 60, what="the worker's jobs")
            dead = self.conn.execute("SELECT id, error FROM dead_jobs WHERE id = ANY(%s)", [ids]).fetchall()
            assert dead == [], f"jobs whose handler cannot fail were dead-lettered: {dead}"
            self.model.done.update(ids)

        @precondition(lambda self: self.worker is not None and self.restarts < RESTARTS_PER_RUN)
        @rule(mode=st.sampled_from(["fast", "immediate"]))
        def database_restarts(self, mode):
            """Between steps the worker is idle, its handler thread holding the connection its last job used."""
            self.tick(f"restart_{mode}")
            self.restarts += 1
            for conn in self.conns:
                conn.close()
            server.restart(mode)
            self.connect()  # what committed is all there, and the model is unchanged

        # -- time --

        @rule(seconds=st.sampled_from(SHIFTS))
        def time_passes(self, seconds):
            self.tick("time_passes")
            self.conn.execute("""UPDATE jobs SET run_at = run_at - make_interval(secs => %(s)s),
                                                 due_at = due_at - make_interval(secs => %(s)s),
                                                 created_at = created_at - make_interval(secs => %(s)s),
                                                 claimed_at = claimed_at - make_interval(secs => %(s)s)""",
                              {"s": seconds})
            self.model.now += seconds

        @invariant()
        def agrees_with_the_model(self):
            check_against(self.conn, self.model, self.seen_attempts)

    return QueueMachine


@pytest.fixture(scope="module")
def server():
    with PrivateServer(prefix="model-") as private:
        yield private


@pytest.mark.slow  # a server of its own, restarted
@pytest.mark.timeout(0 if "COURSE_MODEL_EXAMPLES" in os.environ else 300)  # a long run takes what it takes
def test_the_queue_behaves_like_its_model_under_random_interleavings(server):
    if BUDGET_S and SEED is None:
        pytest.fail("COURSE_MODEL_SECONDS needs COURSE_MODEL_SEED: without a seed every batch would repeat the first")
    schema = "model"
    with psycopg.connect(server.conninfo(), autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
    with psycopg.connect(server.conninfo(schema), autocommit=True) as conn:
        queue.install(conn)
    machine = make_machine(server, schema)
    RAN.clear()
    print(f"\nmodel test: seed {SEED or 'none (derandomized)'}, {EXAMPLES} runs of up to {STEPS} steps a batch"
          + (f", batches for {BUDGET_S:g} s" if BUDGET_S else ""), flush=True)
    deadline = time.monotonic() + BUDGET_S
    batches = 0
    while True:
        seeded = machine if SEED is None else hypothesis.seed(int(SEED) + batches)(machine)
        run_state_machine_as_test(seeded, settings=settings(
            max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, database=None,
            derandomize=SEED is None, suppress_health_check=list(HealthCheck), print_blob=True))
        batches += 1
        if time.monotonic() >= deadline:
            break
    total = sum(RAN.values())
    print(f"model test: seed {SEED or 'none'}, {batches} batch(es) of {EXAMPLES} runs, {total} operations: "
          + ", ".join(f"{name} {n}" for name, n in sorted(RAN.items())))
    assert RAN["claim"] and RAN["fail"] and RAN["time_passes"] and RAN["redrive"] and RAN["worker_runs"], RAN
    assert RAN["restart_fast"] and RAN["restart_immediate"], RAN

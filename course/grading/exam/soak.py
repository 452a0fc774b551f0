"""The exam's run: a seeded workload drained by workers made of the learner's pieces, under fire.

    run(pieces, seed=None, progress=True) -> Run

What it does, in order, all seeded (the seed is printed, and `run(pieces, seed=N)` replays it):
  * a fresh schema with lab 14's table (course/programs/sql/exam.sql), and the workload: ordinary jobs
    (short work), slow jobs (longer than a lease: only the heartbeat keeps them), poison jobs whose work
    always fails (dead-lettered at their last attempt) and permanent failures (dead at the first);
  * WORKERS worker processes (course/grading/exam/worker.py), restarted like a supervisor would when
    they die; they SIGKILL themselves at seeded random points until the kill budget is spent;
  * on cue, from two threads of the run: another session locks the oldest waiting job's row (a support
    agent's open transaction) while the workers claim, and the run watches whether a claim waits for it;
    then, for each slow job in turn, its worker is frozen (SIGSTOP: a long GC pause, a VM migration)
    until another worker has claimed the job, and thawed (SIGCONT) to finish it with its old lease (a
    slow job's work does not end before its worker was frozen once: worker.py waits for the cue; a frozen
    attempt that makes no ack after the thaw, its connection cut just before the freeze, is followed by
    a freeze of the next attempt, which waits for it);
  * the network and the database fail under the workers (a third thread, faults.cut_and_restart): at seeded
    points of the drain (so many jobs done) it terminates one worker backend (pg_terminate_backend), at
    one point every worker's connections at once, and once, past half the drain, it restarts PostgreSQL
    (`-m fast` or `-m immediate`, seeded). The workers connect again and go on (worker.py).
The run has a PostgreSQL of its own (faults.Database), since it restarts it: the course's shared server
is never touched. The run ends when the table is empty, or at its time limit. Nothing here
judges: verdict.py reads the history, the ledger and the tables afterwards.

Why one module: the run's cues, its supervisor and its fault thread share one clock, one history and one
fault lock (a freeze, a cut and a restart never overlap); split apart, each would need the others'
internals, and the order of what happens under fire would be read across files.
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from psycopg import sql as pgsql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb
from tqdm.auto import tqdm

from course.errors import CourseError
from course.grading.exam import cues
from course.grading.exam.pieces import Pieces
from course.grading.exam.faults import CUTS, SCHEMA, Database, FaultPlan, cut_and_restart
from course.grading.exam.worker import CLAIMING, PIECE_RAISED
from course.infra import eventlog, processes
from course.infra.private_server import PrivateServer
from course.programs import sql

WORKERS = 3
LEASE_S = 2.0
ORDINARY, SLOW, POISON, PERMANENT = 30, 2, 3, 2
MAX_ATTEMPTS = 3
KILL_BUDGET = 4
TIME_LIMIT_S = 240.0  # the scenario's own time, from the first worker up; a correct queue needs well under a minute
CUE_LIMIT_S = 90.0  # the longest a cue waits for what it waits for (a claim, a lock wait): only a machine that
# cannot restart a worker in that time makes a cue give up (a restart took 5-6 s at load 26)
START_LIMIT_S = 240.0  # from spawning the workers to the first of them running: not the learner's time
LONGEST_S = START_LIMIT_S + TIME_LIMIT_S + 2 * CUE_LIMIT_S  # a run's worst case: no worker up till the start
# limit, the drain to its time limit, then the cues let go (course grade bounds lab 14 by it)
BATCH_SLOT = WORKERS - 1  # the worker that claims with 03.claim_batch; the others with 03.claim


@dataclass(frozen=True, kw_only=True)
class Event(eventlog.Event):
    """One line of the exam's history; worker -1 is the run itself (kills, freezes, the lock)."""

    worker: int
    job: int | None = None
    attempt: int | None = None
    detail: str = ""
    facts: dict = field(default_factory=dict)


@dataclass
class Run:
    seed: int
    kinds: dict[int, str]  # job id -> ordinary, slow, poison, permanent
    events: list[Event]
    ledger: dict[int, list[tuple[int, int]]]  # job id -> [(worker, attempt)] of each effect committed with its ack
    dead: dict[int, tuple[int, str]]  # job id -> (attempts, reason), buried: committed with the job's delete
    stuck: dict[int, int]  # job id -> attempts, still in the table at the end
    claims: list[dict]  # claim_log rows: job_id, attempt, was_free, held_until (run seconds), at
    timed_out: bool
    elapsed_s: float
    kills: int
    freezes: int
    cuts: int = 0  # worker backends terminated
    restarts: int = 0  # PostgreSQL restarts
    plan: str = ""  # the seed's fault plan, in words (faults.FaultPlan.describe)
    max_attempts: int = MAX_ATTEMPTS
    lease_s: float = LEASE_S
    deletes: list[dict] = field(default_factory=list)  # delete_log rows: job_id, attempt, backend, claimed_by, app, t
    # Ledger and dead-letter rows committed apart from their job's delete (by a piece, never by an ack or a
    # burial): table, job_id, t. Neither books nor buries the job; a ledger row still counts as a duplicate.
    apart: list[dict] = field(default_factory=list)


def workload(rng: random.Random) -> list[dict]:
    kinds = ["ordinary"] * ORDINARY + ["poison"] * POISON + ["permanent"] * PERMANENT
    rng.shuffle(kinds)
    for _ in range(SLOW):  # not among the first third: the row-lock cue comes first
        kinds.insert(rng.randrange(len(kinds) // 3, len(kinds)), "slow")
    work = {"ordinary": (0.02, 0.15), "slow": (2.5 * LEASE_S, 2.5 * LEASE_S), "poison": (0.02, 0.1),
            "permanent": (0.02, 0.1)}
    return [{"kind": kind, "work_s": round(rng.uniform(*work[kind]), 3)} for kind in kinds]


def _seed_jobs(conn, payloads: list[dict]) -> dict[int, str]:
    kinds = {}
    for position, payload in enumerate(payloads):  # a millisecond apart: the first is the oldest
        job_id = conn.execute(
            "INSERT INTO jobs (type, payload, run_at, max_attempts) "
            "VALUES ('book_payment', %s, now() - make_interval(secs => %s), %s) RETURNING id",
            [Jsonb(payload), (len(payloads) - position) / 1000, MAX_ATTEMPTS]).fetchone()[0]
        kinds[job_id] = payload["kind"]
    return kinds


class _Supervisor:
    """The worker slots: start, restart the dead, count kills, stop at a piece that raised.

    The history decides the verdict, and the workers run the learner's pieces: it is kept here
    (eventlog.Kept), each worker writing through a pipe of its own, each line stamped with the slot and
    pid started here; what the run tells the workers (calm, a freeze) goes down pipes of its own (cues.py)."""

    def __init__(self, spec_path: Path, history: eventlog.Kept, started_at: float, database: str):
        self.spec_path, self.kept, self.started_at = spec_path, history, started_at
        self.history = history.path  # the run's own notes are written there directly
        self.board = cues.Board()
        self.database = database  # the workers' role on the run's server: where a sandbox's gate leads
        self.slots: list[processes.Child | None] = [None] * WORKERS
        self.incarnations = [0] * WORKERS
        self.kills = 0
        self.piece_raised = False
        self.lock = threading.Lock()
        # held by a fault for as long as it lasts (a freeze, a cut, a restart): one at a time, so a
        # restart never hits a frozen worker and a cut never takes a frozen worker's connection
        self.fault = threading.Lock()

    def start(self, slot: int) -> None:
        self.incarnations[slot] += 1
        feed, told = self.kept.feed(worker=slot), self.board.open()
        self.slots[slot] = processes.python(f"examworker{slot}", "course.grading.exam.worker",
                                            str(self.spec_path), str(slot), str(self.incarnations[slot]),
                                            env={"DATABASE_URL": self.database, cues.ENV: str(told), **feed.env},
                                            pass_fds=[*feed.fds, told])
        feed.started(self.slots[slot].pid)
        self.board.started(told)

    def pid(self, slot: int) -> int | None:
        """The slot's live worker's pid, as this process signals it."""
        with self.lock:
            child = self.slots[slot]
            return child.pid if child is not None and child.alive() else None

    def wrote(self, slot: int, event: Event) -> bool:
        """Did the slot's live worker write this event? (Its lines carry the pid we started and signal.)"""
        pid = self.pid(slot)
        return pid is not None and pid == event.pid

    def tend(self) -> None:
        with self.lock:
            for slot, child in enumerate(self.slots):
                if child is None or child.alive():
                    continue
                code = child.wait()
                if code == PIECE_RAISED:
                    self.piece_raised = True
                    return
                if code == -signal.SIGKILL:
                    self.kills += 1
                    if self.kills >= KILL_BUDGET:
                        self.board.say(calm=True)
                eventlog.record(self.history, since=self.started_at, worker=slot, pid=child.pid, kind="exited",
                                detail=f"exit code {code}" + ("" if code == -signal.SIGKILL else
                                                              ": " + child.log_tail(3).strip()))
                self.start(slot)

    def stop(self) -> None:
        self.board.say(calm=True)
        for child in self.slots:
            if child is not None and child.alive():
                child.signal(signal.SIGCONT)
                child.kill()
        self.kept.close()  # their last lines are in
        self.board.close()


def _note(supervisor: _Supervisor, **fields) -> None:
    eventlog.record(supervisor.history, since=supervisor.started_at, worker=-1, **fields)


def _hold_a_row(box: Database, supervisor: _Supervisor, done: threading.Event) -> None:
    """Cue 1: a support agent's transaction holds the oldest waiting job's row while the workers claim;
    the run watches whether a claim waits for it (claim_waited_for). Released once one does, or once the
    workers have made three jobs each since (every one got past it: a claim that waits for the lock never
    does), or once it is the last job left, or at CUE_LIMIT_S."""
    holder = box.connect(autocommit=False)
    watcher = box.connect()
    try:
        job_id = _lock_a_waiting_job(holder, done)
        if job_id is None:
            return
        agent = holder.execute("SELECT pg_backend_pid()").fetchone()[0]
        since = watcher.execute("SELECT clock_timestamp()").fetchone()[0]
        _note(supervisor, kind="row_locked", job=job_id, detail="another session locks this job's row and keeps it")
        deadline = time.monotonic() + CUE_LIMIT_S
        while not done.is_set() and time.monotonic() < deadline:
            name = claim_waited_for(watcher, agent)
            if name is not None:
                _note(supervisor, kind="claim_waited", job=job_id, detail=f"{name}'s claim waits for that row lock",
                      facts={"worker": name})
                break
            past = watcher.execute("SELECT count(*) FROM (SELECT app FROM claim_log WHERE at > %s GROUP BY app "
                                   "HAVING count(*) >= 3) AS claimed", [since]).fetchone()[0]
            if past >= WORKERS:
                break  # the workers got past it
            if watcher.execute("SELECT count(*) FROM jobs").fetchone()[0] <= 1:
                break  # nothing else is left to claim
            time.sleep(0.05)
        holder.rollback()
        _note(supervisor, kind="row_released", job=job_id)
    finally:
        holder.close()
        watcher.close()


def _lock_a_waiting_job(holder, done: threading.Event) -> int | None:
    """Lock the row of the oldest job never claimed, in `holder`'s transaction, and no other row (see
    exam.sql's lock_job); None when none is left unclaimed."""
    while not done.is_set():
        candidate = holder.execute(sql.query("exam", "waiting_job")).fetchone()
        if candidate is None:
            holder.rollback()
            return None
        locked = holder.execute(sql.query("exam", "lock_job"), {"id": candidate[0]}).fetchone()
        if locked is not None and locked[0] == 0:
            return candidate[0]
        holder.rollback()  # claimed meanwhile (or being claimed): let go of it, and look again
        time.sleep(0.01)
    return None


def claim_waited_for(watcher, holder_pid: int) -> str | None:
    """The name of a worker connection whose claim piece waits, now, for the row lock the backend
    `holder_pid` holds (exam.sql's claims_waiting_for); None when no claim does."""
    row = watcher.execute(sql.query("exam", "claims_waiting_for"),
                          {"holder": holder_pid, "claiming": f"%{CLAIMING}"}).fetchone()
    return None if row is None else row[0].removesuffix(CLAIMING)


ENDED = ("finished", "failed", "killed", "acked", "ack_refused", "buried", "retried", "let_go")  # an attempt's work is over


def _at_work_on(supervisor: _Supervisor, job_id: int) -> tuple[int, int, int] | None | bool:
    """(slot, pid, attempt) of the live worker running this job now (its pid as we signal it); None if none
    is; False once it is done. By attempt: a worker that let its attempt go (its connection cut) may write
    its last words after the next attempt started."""
    events = [e for e in eventlog.read(supervisor.history, Event) if e.job == job_id]
    last = next((e for e in reversed(events) if e.kind in ("started", *ENDED)), None)
    if last is not None and last.kind in ("acked", "buried"):
        return False
    ended = {e.attempt for e in events if e.kind in ENDED}
    for event in reversed(events):
        if event.kind == "started" and event.attempt not in ended and supervisor.wrote(event.worker, event):
            pid = supervisor.pid(event.worker)
            return (event.worker, pid, event.attempt) if pid is not None else None
    return None


def _freeze_slow_jobs(box: Database, supervisor: _Supervisor, slow: list[int], app: str,
                      done: threading.Event) -> None:
    """Cue 2: each slow job's worker is frozen (SIGSTOP) while it runs the job, never inside a transaction,
    until another worker has claimed the job (its lease ran out meanwhile); then thawed (SIGCONT), to go
    on with its old lease: its heartbeat and its ack are then the ones of a worker that lost the job.
    The freeze holds the run's fault lock from SIGSTOP to SIGCONT: no cut or restart meanwhile."""
    watcher = box.another()
    pending = list(slow)  # watched together: the second slow job may run first, or beside the first
    try:
        while pending and not done.is_set():
            for job_id in list(pending):
                found = _at_work_on(supervisor, job_id)
                if found is False:  # done before a freeze could catch it (a fault held the lock meanwhile)
                    pending.remove(job_id)
                    continue
                if not found or not supervisor.fault.acquire(timeout=0.05):
                    continue
                slot, pid, attempt = found
                os.kill(pid, signal.SIGSTOP)
                busy = watcher.query("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE %s "
                                     "AND state <> 'idle'", [f"{app}-{slot}%"])[0][0]
                if busy:  # caught in a heartbeat's transaction: its row lock would keep every claim away
                    os.kill(pid, signal.SIGCONT)
                    supervisor.fault.release()
                    continue
                pending.remove(job_id)
                try:
                    acked = _hold_frozen(watcher, supervisor, job_id, slot, pid, attempt, done)
                finally:
                    supervisor.fault.release()
                if acked:  # the stale ack the freeze is for was made: the job's later attempts need no freeze
                    supervisor.board.say(released=job_id)
                if not acked and not done.is_set():
                    # its connection was cut just before the freeze (or it died): no stale ack was made, and
                    # the attempt now at work waits for a freeze of its own (worker.wait_for_the_freeze)
                    _note(supervisor, kind="freeze_void", job=job_id, attempt=attempt,
                          detail=f"worker {slot} made no ack after the thaw: the next attempt is frozen instead")
                    pending.append(job_id)
            time.sleep(0.05)
    finally:
        watcher.close()


SETTLED = ("acked", "ack_refused", "failed", "killed", "let_go")  # how a worker ends an attempt it worked
ACKS = ("acked", "ack_refused")  # a frozen attempt that made one of these made the stale ack the cue is for


def _hold_frozen(watcher, supervisor: _Supervisor, job_id: int, slot: int, pid: int, attempt: int,
                 done: threading.Event) -> bool:
    """Keep the worker stopped until another has claimed its job (its lease ran out), then thaw it; whether
    the thawed attempt then made its (stale) ack."""
    _note(supervisor, kind="frozen", job=job_id, attempt=attempt, facts={"slot": slot},
          detail=f"worker {slot} frozen (SIGSTOP) while it runs this job")
    supervisor.board.say(frozen=[job_id, attempt])  # heard once thawed: its work may end (worker.wait_for_the_freeze)
    deadline = time.monotonic() + CUE_LIMIT_S
    while not done.is_set() and time.monotonic() < deadline:
        if watcher.query("SELECT count(*) FROM claim_log WHERE job_id = %s AND attempt > %s",
                         [job_id, attempt])[0][0]:
            break
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass
    _note(supervisor, kind="thawed", job=job_id, facts={"slot": slot},
          detail=f"worker {slot} thawed (SIGCONT): it goes on with its old lease")
    # The caller still holds the fault lock: no cut or restart until the thawed worker has settled this
    # attempt (acked, been refused, failed) or died, so its stale ack always reaches the server and is seen.
    deadline = time.monotonic() + CUE_LIMIT_S
    settled = []
    while not done.is_set() and time.monotonic() < deadline and supervisor.pid(slot) == pid:
        settled = [event.kind for event in eventlog.read(supervisor.history, Event)
                   if event.job == job_id and event.attempt == attempt and event.worker == slot and event.kind in SETTLED]
        if settled:
            break
        time.sleep(0.05)
    settled = settled or [event.kind for event in eventlog.read(supervisor.history, Event)
                          if event.job == job_id and event.attempt == attempt and event.worker == slot]
    return any(kind in ACKS for kind in settled)


def run(pieces: Pieces, *, seed: int | None = None, progress: bool = True) -> Run:
    """Drain the exam's workload with workers made of `pieces`, under fire (see the module's docstring)."""
    if pieces.missing:
        raise ValueError("the exam needs every piece; missing: " + ", ".join(pieces.missing) + ". Nothing ran.")
    seed = random.randrange(1, 10**6) if seed is None else seed
    rng = random.Random(seed)
    kept = eventlog.Kept("course-exam-")  # in our log folder: no worker, nor any process of the notebook, reaches it
    history = Path(kept.path)
    spec: Path | None = None
    with PrivateServer(prefix="exam-") as server:
        box = Database(server)
        try:
            with box.connect() as setup:
                setup.execute(f"CREATE SCHEMA {SCHEMA}")
                setup.execute(sql.query("exam", "schema"))
                setup.execute(sql.query("exam", "watch_deletes"))
                kinds = _seed_jobs(setup, workload(rng))
                workers_conninfo = _workers_role(setup, box.conninfo)
            plan = FaultPlan.draw(rng, len(kinds))
            started_at = time.time()
            spec = processes.pickle_for_child({
                "conninfo": workers_conninfo, "pieces": pieces.functions, "history": str(history), "seed": seed,
                "started_at": started_at, "lease_s": LEASE_S,
                "kill_mid_work": 0.04, "kill_after_ack": 0.04, "batch_slot": BATCH_SLOT}, "exam-spec")
            supervisor = _Supervisor(spec, kept, started_at, workers_conninfo)
            done = threading.Event()
            slow = [job_id for job_id, kind in kinds.items() if kind == "slow"]
            app = f"examworker-{seed}"
            row_cue = threading.Thread(target=_hold_a_row, args=(box.another(), supervisor, done), daemon=True)
            cues = [row_cue,
                    threading.Thread(target=_freeze_slow_jobs, daemon=True,
                                     args=(box.another(), supervisor, slow, app, done)),
                    threading.Thread(target=cut_and_restart, daemon=True,
                                     args=(box.another(), supervisor.fault, partial(_note, supervisor), plan,
                                           random.Random(f"{seed}:cuts"), len(kinds), app, row_cue, done))]
            bar = tqdm(total=len(kinds), desc=f"exam, seed {seed}", unit="job", disable=not progress)
            timed_out = False
            try:
                for slot in range(WORKERS):
                    supervisor.start(slot)
                deadline = None
                start_limit = time.monotonic() + START_LIMIT_S
                while True:
                    supervisor.tend()
                    if supervisor.piece_raised:
                        break
                    if deadline is None and history.stat().st_size:  # the first worker is up
                        deadline = time.monotonic() + TIME_LIMIT_S
                        for cue in cues:
                            cue.start()
                    left = box.query("SELECT count(*) FROM jobs")[0][0]
                    bar.n = len(kinds) - left
                    bar.refresh()
                    if left == 0 and not cues[2].is_alive():
                        break  # every fault of the plan fell: they all come before the last few jobs
                    if 0 < left <= SLOW + POISON + PERMANENT and _only_hopeless_left(box, history):
                        break
                    if deadline is None and time.monotonic() > start_limit:
                        raise CourseError(f"no exam worker started within {START_LIMIT_S:.0f} s (is the machine "
                                          "overloaded?): nothing was graded. The last worker's log:\n"
                                          + supervisor.slots[0].log_tail(8))
                    if deadline is not None and time.monotonic() > deadline:
                        timed_out = True
                        break
                    time.sleep(0.1)
            finally:
                done.set()
                for cue in cues:
                    if cue.is_alive():
                        cue.join(timeout=CUE_LIMIT_S)  # a restart in progress finishes first
                supervisor.stop()
                bar.close()
            elapsed = time.time() - started_at
            result = _collect(box, seed, kinds, history, started_at, timed_out, elapsed, supervisor)
            result.plan = plan.describe()
            return result
        finally:
            box.close()
            if spec is not None:
                spec.unlink(missing_ok=True)
            kept.close()
            history.unlink(missing_ok=True)


def _workers_role(conn, conninfo: str) -> str:
    """The workers' own role on the run's server (exam.sql's worker_role: never the superuser), with a
    password of this run's; the connection string they log in with."""
    password = secrets.token_hex(16)
    conn.execute(sql.query("exam", "worker_role"))
    conn.execute(pgsql.SQL("ALTER ROLE exam_worker PASSWORD {}").format(pgsql.Literal(password)))
    params = conninfo_to_dict(conninfo)
    params.pop("passfile", None)  # the superuser's
    return make_conninfo(**{**params, "user": "exam_worker", "password": password})


def _only_hopeless_left(box: Database, history: Path) -> bool:
    """Every job still in the table is one no correct queue keeps: claimed more often than its attempts,
    the kills, the freezes and the connections cut allow, or retried after its last attempt. Waiting longer
    would only retry it again (with a backoff that keeps growing): the run ends, and those jobs count as stuck."""
    left = box.query("SELECT id, attempts FROM jobs")
    if not left:
        return False
    retried_past_last = {e.job for e in eventlog.read(history, Event)
                         if e.kind == "retried" and e.attempt is not None and e.attempt >= MAX_ATTEMPTS}
    beyond = MAX_ATTEMPTS + KILL_BUDGET + SLOW + CUTS + 2 * WORKERS  # the cut of all and the restart: one each
    return all(attempts > beyond or job_id in retried_past_last for job_id, attempts in left)


def claiming_piece(application_name: str) -> str:
    """Which piece a worker's connection claims with, from its name (examworker-SEED-SLOT)."""
    slot = application_name.split("-")[2] if application_name.count("-") >= 2 else ""
    return "03.claim_batch" if slot == str(BATCH_SLOT) else "03.claim"


def effects(box: Database, started_at: float) -> tuple[dict, dict, list[dict]]:
    """The ledger (job -> [(worker, attempt)]) and the dead-letter table (job -> (attempts, reason)) as they
    count: rows committed in the transaction that deleted their job (exam.sql's watch_deletes); and the
    rows committed apart from it (Run.apart)."""
    ledger: dict[int, list[tuple[int, int]]] = {}
    dead: dict[int, tuple[int, str]] = {}
    apart: list[dict] = []
    for job_id, worker, attempt, at, acked in box.query(
            "SELECT job_id, worker, attempt, booked_at, EXISTS (SELECT FROM delete_log AS d "
            "WHERE d.job_id = ledger.job_id AND d.xact = ledger.xact) FROM ledger ORDER BY booked_at"):
        if acked:
            ledger.setdefault(job_id, []).append((worker, attempt))
        else:
            apart.append({"table": "ledger", "job_id": job_id, "t": at.timestamp() - started_at})
    for job_id, attempts, reason, at, buried in box.query(
            "SELECT id, attempts, reason, died_at, EXISTS (SELECT FROM delete_log AS d "
            "WHERE d.job_id = dead_jobs.id AND d.xact = dead_jobs.xact) FROM dead_jobs ORDER BY died_at"):
        if buried:
            dead[job_id] = (attempts, reason)
        else:
            apart.append({"table": "dead_jobs", "job_id": job_id, "t": at.timestamp() - started_at})
    return ledger, dead, apart


def _collect(box: Database, seed, kinds, history, started_at, timed_out, elapsed, supervisor) -> Run:
    ledger, dead, apart = effects(box, started_at)
    stuck = dict(box.query("SELECT id, attempts FROM jobs"))
    claims = [{"job_id": j, "attempt": a, "was_free": free, "piece": claiming_piece(app),
               "held_until": None if until is None else until.timestamp() - started_at, "t": at.timestamp() - started_at}
              for j, a, free, until, at, app in box.query(
                  "SELECT job_id, attempt, was_free, held_until, at, app FROM claim_log ORDER BY at")]
    deletes = [{"job_id": j, "attempt": a, "backend": backend, "claimed_by": claimer, "app": app,
                "t": at.timestamp() - started_at} for j, a, backend, claimer, app, at in box.query(
                    "SELECT job_id, attempt, backend, claimed_by, app, at FROM delete_log ORDER BY at")]
    events = eventlog.read(history, Event)
    count = lambda kind: sum(1 for e in events if e.kind == kind)  # noqa: E731
    return Run(seed, kinds, events, ledger, dead, stuck, claims, timed_out, elapsed, supervisor.kills,
               count("frozen"), cuts=sum(e.facts.get("backends", 0) for e in events if e.kind == "cut"),
               restarts=count("restarted"), deletes=deletes, apart=apart)

"""`python -m course chaos`: kill workers and the database at random while jobs run; count what was lost.

    python -m course chaos                        10,000 jobs, 8 workers, 50+ kills, two restarts
    python -m course chaos --seed 7               the same fault schedule again
    python -m course chaos --jobs 1000 --kills 10 --restarts fast     (what `make test` runs)

What happens:
  * a PostgreSQL of its own starts in a temporary folder (restarting the shared course database would
    break whatever else uses it);
  * the jobs go in. Each writes one effect row through an idempotency key, and first counts the raw
    execution; 2 % are poison and always fail: with a plain error, a SystemExit or KeyboardInterrupt,
    a message holding NUL, or tens of kilobytes of emoji (none of which may stop a worker);
  * 8 worker processes run them (lease 2 s). Whenever one dies we start another, as systemd or
    Kubernetes would;
  * the fault loop, every ~200 ms, SIGKILLs a random worker; now and then it drops workers' connections
    (pg_terminate_backend); at a third and two thirds of the way it restarts PostgreSQL, `-m fast`
    (clients are told) then `-m immediate` (a crash). The workers reconnect by themselves.
Then the faults stop and the queue drains. Last, PostgreSQL restarts once more while every worker is idle,
its handler threads holding the connections their last jobs used, and a batch of jobs with one attempt
each follows: a restart that cost any of them its attempt would leave a dead letter. The checks below
then run against the database.

The seed fixes the fault schedule, the poison jobs and the handlers' work times; it is printed, so a
failure can be run again. Everything started here is stopped when the soak ends, whatever happens.

Why one module: it is one experiment — the jobs it runs, the faults it injects and the checks of what
they left behind — and each check is only meaningful beside the jobs and faults it judges.
"""

from __future__ import annotations

import argparse
import random
import socket
import sys
import time
from dataclasses import dataclass, field

import psycopg
from psycopg import sql as pgsql

from course.core import queue
from course.core.queue import LAST_ATTEMPT_LOST
from course.core.worker import Registry
from course.infra.processes import HangBound, patience, wait_until

# -- the jobs ---------------------------------------------------------------------------------------

handlers = Registry()  # the workers load this: --app course.evidence.chaos:handlers

TABLES = """
CREATE TABLE chaos_expected   (key text PRIMARY KEY, poison boolean NOT NULL);  -- every job enqueued
CREATE TABLE chaos_executions (key text NOT NULL, pid int NOT NULL);            -- every run that started
CREATE TABLE chaos_done_keys  (key text PRIMARY KEY);                           -- the idempotency keys
-- No unique constraint here on purpose: a broken idempotency check must show up as a duplicate.
CREATE TABLE chaos_effects    (key text NOT NULL, job_id bigint NOT NULL);
"""
POISON_MAX_ATTEMPTS = 3
AFTER_RESTART = "after_restart"  # the jobs enqueued after the restart while the workers were idle: one attempt each


@handlers.handler("effect", payload={"key": str, "work_ms": int})
@handlers.handler(AFTER_RESTART, payload={"key": str, "work_ms": int})
def write_effect(job, conn):
    """Count the run, work a little, then write the effect once per key, however often the job runs."""
    conn.execute("INSERT INTO chaos_executions (key, pid) VALUES (%s, pg_backend_pid())", [job.payload["key"]])
    time.sleep(job.payload["work_ms"] / 1000)
    with conn.transaction():  # the key and the effect commit together, or neither does
        first_time = conn.execute("INSERT INTO chaos_done_keys (key) VALUES (%s) ON CONFLICT DO NOTHING",
                                  [job.payload["key"]]).rowcount == 1
        if first_time:
            conn.execute("INSERT INTO chaos_effects (key, job_id) VALUES (%s, %s)", [job.payload["key"], job.id])


# What a poison job raises, by its number: the plain failure, and the ones that used to wedge a worker
# (BaseExceptions that end a thread; messages PostgreSQL cannot store or pg_notify cannot carry as is).
POISONS = (
    lambda: RuntimeError("poison: this job fails every time"),
    lambda: SystemExit(3),
    lambda: KeyboardInterrupt(),
    lambda: RuntimeError("poison with a NUL \x00 in its message"),
    lambda: RuntimeError("poison \N{GRINNING FACE} " * 5000),  # 30,000 characters, 30 kB+ of UTF-8
)


@handlers.handler("poison", payload={"key": str})
def always_fail(job, conn):
    conn.execute("INSERT INTO chaos_executions (key, pid) VALUES (%s, pg_backend_pid())", [job.payload["key"]])
    raise POISONS[job.payload.get("kind", 0) % len(POISONS)]()


# -- the soak -----------------------------------------------------------------------------------------

SCHEMA = "chaos"
RUNNING = ", concurrency "  # in a worker's first log line, written once it is connected and about to claim
WORKER_NAME = "chaos-worker"  # application_name of the workers' connections


@dataclass(frozen=True)
class Config:
    jobs: int = 10_000
    workers: int = 8
    concurrency: int = 4
    lease_s: float = 2.0
    kills: int = 50  # at least this many SIGKILLs
    kill_every_s: float = 0.2  # on average
    restarts: tuple[str, ...] = ("fast", "immediate")
    idle_restart: str | None = "fast"  # after the drain, with every worker idle; None: none
    poison_share: float = 0.02
    work_ms: tuple[int, int] = (5, 40)  # each job's handler sleeps this long (drawn per job)
    seed: int = 0
    deadline_s: float = 600.0  # the whole soak, faults and drain; bounds a hang only (stretched on a loaded machine)


@dataclass
class Faults:
    kills: int = 0
    jobs_in_flight_at_kill: int = 0
    connection_drops: int = 0
    connections_dropped: int = 0
    restarts: list[tuple[str, float]] = field(default_factory=list)  # (mode, seconds into the soak)
    idle_restart: tuple[str, float] | None = None  # the same, for the restart while every worker was idle
    exits_during_outage: int = 0  # a worker that started while PostgreSQL was down: exit 2, restarted
    unexpected_exits: list[str] = field(default_factory=list)  # the tail of each such worker's log


@dataclass
class Check:
    what: str
    value: object
    expected: str
    ok: bool | None  # None: shown, not judged


@dataclass
class Report:
    config: Config
    faults: Faults
    checks: list[Check]
    wall_s: float

    @property
    def passed(self) -> bool:
        return all(check.ok is not False for check in self.checks)

    def lines(self) -> list[str]:
        c, f = self.config, self.faults
        restarts = ", ".join(f"-m {mode} at {at:.1f} s" for mode, at in f.restarts) or "none"
        if f.idle_restart:
            restarts += f"; -m {f.idle_restart[0]} at {f.idle_restart[1]:.1f} s with every worker idle"
        out = [
            f"chaos soak, seed {c.seed}: {c.jobs:,} jobs ({round(c.jobs * c.poison_share)} poison), "
            f"{c.workers} workers x {c.concurrency}, lease {c.lease_s:g} s",
            f"faults: {f.kills} SIGKILLs ({f.jobs_in_flight_at_kill} jobs in flight at the time), "
            f"{f.connection_drops} connection drops ({f.connections_dropped} connections), "
            f"PostgreSQL restarted: {restarts}",
            f"workers that stopped by themselves: {f.exits_during_outage} started while PostgreSQL was down "
            f"(restarted), {len(f.unexpected_exits)} for another reason",
            "",
        ]
        for check in self.checks:
            verdict = {True: "ok", False: "FAILED", None: ""}[check.ok]
            out.append(f"  {check.what:<46} {str(check.value):>10}   {check.expected:<34} {verdict}")
        for tail in f.unexpected_exits:
            out += ["", "a worker stopped unexpectedly; its log ends:", tail]
        out += ["", f"wall time {self.wall_s:.1f} s: {'PASSED' if self.passed else 'FAILED'}"]
        return out


class Soak:
    """The server, the workers, the fault loop and the checks of one run."""

    def __init__(self, config: Config, server, log=print):
        self.config = config
        self.server = server
        self.rng = random.Random(config.seed)
        self.log = log
        self.faults = Faults()
        self.workers: list = []
        self.started_at = time.monotonic()
        self.bound = HangBound(config.deadline_s)  # read at each look: the load may rise meanwhile
        self._admin: psycopg.Connection | None = None

    # -- the database, which we restart under everyone ---------------------------------------------

    def admin(self) -> psycopg.Connection:
        """Our own connection to the soak's schema, opened again after a restart broke it."""
        bound = HangBound(60)  # a restart under load takes seconds, never a minute on an idle machine
        while self._admin is None or self._admin.broken or self._admin.closed:
            try:
                self._admin = psycopg.connect(self.server.conninfo(SCHEMA), autocommit=True, connect_timeout=5)
            except psycopg.OperationalError:
                if bound.passed():
                    raise
                time.sleep(0.2)
        return self._admin

    def query(self, statement: str, params=None) -> list[tuple]:
        try:
            return self.admin().execute(statement, params).fetchall()
        except psycopg.OperationalError:  # our connection died in a restart: once more, on a new one
            return self.admin().execute(statement, params).fetchall()

    def set_up(self) -> None:
        with psycopg.connect(self.server.conninfo(), autocommit=True) as conn:
            conn.execute(pgsql.SQL("DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}").format(
                s=pgsql.Identifier(SCHEMA)))
        conn = self.admin()
        queue.install(conn)
        conn.execute(TABLES)
        c = self.config
        poison = set(self.rng.sample(range(c.jobs), round(c.jobs * c.poison_share)))
        effects = [{"key": f"effect:{n}", "work_ms": self.rng.randint(*c.work_ms)}
                   for n in range(c.jobs) if n not in poison]
        poisons = [{"key": f"poison:{n}", "kind": i % len(POISONS)} for i, n in enumerate(sorted(poison))]
        with conn.transaction():
            queue.enqueue_many(conn, "effect", effects)
            queue.enqueue_many(conn, "poison", poisons, max_attempts=POISON_MAX_ATTEMPTS)
            with conn.cursor().copy("COPY chaos_expected (key, poison) FROM STDIN") as copy:
                for payload in effects:
                    copy.write_row((payload["key"], False))
                for payload in poisons:
                    copy.write_row((payload["key"], True))

    # -- workers -----------------------------------------------------------------------------------

    def start_worker(self, slot: int):
        from course.core import worker

        child = worker.spawn("course.evidence.chaos:handlers", schema=SCHEMA, concurrency=self.config.concurrency,
                             lease_s=self.config.lease_s, poll_interval_s=0.5, name=f"chaos-worker{slot}",
                             dsn=self.server.conninfo(application_name=WORKER_NAME))
        if slot < len(self.workers):
            self.workers[slot] = child
        else:
            self.workers.append(child)
        return child

    def replace_dead_workers(self) -> None:
        """What a supervisor does: a worker that exited is started again, and we note why it exited."""
        for slot, child in enumerate(self.workers):
            if child.alive():
                continue
            code = child.wait(5)
            log = child.log()
            if code == 2 and "the database did not answer" in log:
                self.faults.exits_during_outage += 1
            else:
                self.faults.unexpected_exits.append(f"(exit {code}) " + child.log_tail(15))
            self.start_worker(slot)

    def wait_for_workers_running(self) -> None:
        """Until each worker has logged its first line: connected, and waiting for jobs."""
        wait_until(lambda: all(RUNNING in child.log() for child in self.workers), 60,
                   what="every worker to be running")

    def close(self) -> None:
        for child in self.workers:
            if child.alive():
                child.kill()
        if self._admin is not None:
            self._admin.close()

    # -- faults ------------------------------------------------------------------------------------

    def kill_one(self) -> None:
        """SIGKILL a random worker among those running (connected, claiming): a worker still starting up
        holds nothing, and killing those (every replacement is one, for a second or so) tests nothing."""
        running = [slot for slot, child in enumerate(self.workers) if child.alive() and RUNNING in child.log()]
        if not running:
            return
        slot = self.rng.choice(running)
        victim = self.workers[slot]
        name = f"{socket.gethostname()}:{victim.pid}"  # what the worker writes in jobs.claimed_by
        try:
            in_flight = self.query("SELECT count(*) FROM jobs WHERE claimed_by = %s AND run_at > now()",
                                   [name])[0][0]
        except psycopg.OperationalError:
            in_flight = 0
        victim.kill()
        self.faults.kills += 1
        self.faults.jobs_in_flight_at_kill += in_flight
        self.start_worker(slot)

    def drop_connections(self) -> None:
        pids = [row[0] for row in self.query(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s ORDER BY pid", [WORKER_NAME])]
        if not pids:
            return
        chosen = self.rng.sample(pids, min(len(pids), self.rng.randint(1, 3)))
        self.query("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [chosen])
        self.faults.connection_drops += 1
        self.faults.connections_dropped += len(chosen)

    def restart_database(self, mode: str, why: str = "") -> float:
        at = time.monotonic() - self.started_at
        self.log(f"  {at:5.1f} s  restarting PostgreSQL with -m {mode}{why}")
        self.server.restart(mode)
        return at

    def restart_while_idle(self) -> None:
        """Restart PostgreSQL while every worker waits for work, then give them jobs that have one attempt
        each. Their handler threads still hold the connections their last jobs used, which the restart
        closed: a worker that handed one of those to a handler would cost that job its only attempt."""
        c = self.config
        if not c.idle_restart:
            return
        self.replace_dead_workers()
        self.wait_for_workers_running()
        at = self.restart_database(c.idle_restart, " while every worker is idle")
        self.faults.idle_restart = (c.idle_restart, at)
        batch = [{"key": f"{AFTER_RESTART}:{n}", "work_ms": self.rng.randint(*c.work_ms)}
                 for n in range(c.workers * c.concurrency * 2)]
        with psycopg.connect(self.server.conninfo(SCHEMA), autocommit=True, connect_timeout=5) as conn:
            with conn.transaction():
                queue.enqueue_many(conn, AFTER_RESTART, batch, max_attempts=1)
                with conn.cursor().copy("COPY chaos_expected (key, poison) FROM STDIN") as copy:
                    for payload in batch:
                        copy.write_row((payload["key"], False))
        self.wait_for_empty_queue()

    def fault_loop(self, progress=None) -> None:
        c = self.config
        # Restarts at even intervals of the kills: with two, after a third and two thirds of them.
        restarts = [(round(c.kills * (n + 1) / (len(c.restarts) + 1)), mode) for n, mode in enumerate(c.restarts)]
        while self.faults.kills < c.kills or restarts:
            self.check_deadline("the fault loop")
            time.sleep(self.rng.uniform(0.5, 1.5) * c.kill_every_s)
            self.replace_dead_workers()
            self.kill_one()
            if progress is not None:
                progress.update()
            if self.rng.random() < 0.2:
                self.drop_connections()
            if restarts and self.faults.kills >= restarts[0][0]:
                mode = restarts.pop(0)[1]
                self.faults.restarts.append((mode, self.restart_database(mode)))

    def check_deadline(self, during: str) -> None:
        if self.bound.passed():
            raise TimeoutError(f"the soak ran out of time, {self.bound}, during {during}")

    def wait_for_empty_queue(self) -> None:
        while self.query("SELECT count(*) FROM jobs")[0][0]:
            self.check_deadline("the drain")
            self.replace_dead_workers()
            time.sleep(0.2)


def verify(conn: psycopg.Connection, faults: Faults | None = None) -> list[Check]:
    """What must hold after the soak, read from the database (a test also runs it on made-up states)."""
    one = lambda statement: conn.execute(statement).fetchone()[0]  # noqa: E731
    poison = one("SELECT count(*) FROM chaos_expected WHERE poison")
    lost = one("""SELECT count(*) FROM chaos_expected e
                  WHERE NOT e.poison AND NOT EXISTS (SELECT FROM chaos_effects f WHERE f.key = e.key)""")
    duplicates = one("SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM chaos_effects GROUP BY key) t")
    reruns = one("""SELECT coalesce(sum(n - 1), 0) FROM (
                        SELECT count(*) AS n FROM chaos_executions x JOIN chaos_expected e USING (key)
                        WHERE NOT e.poison GROUP BY key) t""")
    poison_dead = one(f"""SELECT count(*) FROM dead_jobs
                          WHERE type = 'poison' AND reason = 'max_attempts' AND attempts = max_attempts
                            AND max_attempts = {POISON_MAX_ATTEMPTS}""")
    other_dead = one(f"SELECT count(*) FROM dead_jobs WHERE type NOT IN ('poison', '{AFTER_RESTART}')")
    # After the restart while idle nothing is killed, so the only way to lose one of these jobs' single
    # attempt is a failed run; a lease that ran out (a worker stalled for its whole lease on a loaded
    # machine) buries a job with LAST_ATTEMPT_LOST instead, after its run, and is shown, not judged.
    failed_after_restart = one(f"""SELECT count(*) FROM dead_jobs WHERE type = '{AFTER_RESTART}'
                                     AND error IS DISTINCT FROM '{LAST_ATTEMPT_LOST}'""")
    stalled_after_restart = one(f"""SELECT count(*) FROM dead_jobs WHERE type = '{AFTER_RESTART}'
                                      AND error = '{LAST_ATTEMPT_LOST}'""")
    left = one("SELECT count(*) FROM jobs")
    checks = [
        Check("jobs lost (no effect, not poison)", lost, "must be 0", lost == 0),
        Check("duplicate effects", duplicates, "must be 0", duplicates == 0),
        Check("raw executions above one per job", reruns, "> 0 expected: at-least-once", None),
        Check("poison jobs dead-lettered with attempts = max", f"{poison_dead}/{poison}", "all of them",
              poison_dead == poison),
        Check("other jobs in the dead-letter table", other_dead, "must be 0", other_dead == 0),
        Check("one-attempt jobs failed after the idle restart", failed_after_restart, "must be 0",
              failed_after_restart == 0),
        Check("  ... lease ran out (a stalled worker)", stalled_after_restart, "shown: not the restart's doing",
              None),
        Check("jobs left in the queue", left, "must be 0", left == 0),
    ]
    if faults is not None:
        unexpected = len(faults.unexpected_exits)
        checks.append(Check("workers that stopped for no reason we caused", unexpected, "must be 0",
                            unexpected == 0))
    return checks


def run_soak(config: Config, log=print, progress=None) -> Report:
    """The whole soak on a server of its own; everything it started is stopped, also on failure."""
    from course.infra.private_server import PrivateServer

    with PrivateServer(prefix="chaos-") as server:
        soak = Soak(config, server, log)
        try:
            soak.set_up()
            for slot in range(config.workers):
                soak.start_worker(slot)
            soak.fault_loop(progress)
            soak.wait_for_empty_queue()
            soak.restart_while_idle()
            # SIGTERM: finish, exit 0 (SIGKILLed, and counted unclean, only past a hang's bound at this load)
            unclean = sum(child.terminate(30 * patience()) != 0 for child in soak.workers)
            checks = verify(soak.admin(), soak.faults)
            checks.append(Check("workers not exiting 0 on SIGTERM at the end", unclean, "must be 0", unclean == 0))
        finally:
            soak.close()
    return Report(config, soak.faults, checks, time.monotonic() - soak.started_at)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course chaos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, help="the fault schedule (default: random, printed)")
    parser.add_argument("--jobs", type=int, default=Config.jobs)
    parser.add_argument("--workers", type=int, default=Config.workers)
    parser.add_argument("--kills", type=int, default=Config.kills, help="at least this many SIGKILLs")
    parser.add_argument("--restarts", default=",".join(Config.restarts),
                        help="PostgreSQL restart modes, in order (fast, immediate; empty for none)")
    parser.add_argument("--idle-restart", default=Config.idle_restart,
                        help="after the drain, restart PostgreSQL with this mode while every worker is idle, then "
                             "run jobs of one attempt each (empty for none)")
    parser.add_argument("--deadline-s", type=float, default=Config.deadline_s, help="seconds before giving up")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(10**6)
    config = Config(jobs=args.jobs, workers=args.workers, kills=args.kills, seed=seed, deadline_s=args.deadline_s,
                    restarts=tuple(mode for mode in args.restarts.split(",") if mode),
                    idle_restart=args.idle_restart or None)
    print(f"chaos soak, seed {seed} (run again with --seed {seed})")
    from tqdm import tqdm

    try:
        with tqdm(total=config.kills, unit="kill", file=sys.stderr) as progress:
            report = run_soak(config, log=progress.write, progress=progress)
    except TimeoutError as error:  # everything it started is stopped already
        print(f"FAILED, seed {seed}: {error}")
        return 1
    print("\n".join(report.lines()))
    return 0 if report.passed else 1

"""Lab 08: the missed-run policy, the scheduler tick (run by three scheduler processes at once), the quiz.

The tick's check runs the learner's `tick` inside three real scheduler processes (course.core.scheduler.run,
started as `python -m course.grading.checks.lab08 SPEC NAME`), all on one simulated clock that the check
moves slot by slot. The clock's NOTIFY wakes the three at the same instant, and every enqueue is slowed
by 50 ms in the database, so a tick that checks before it inserts is caught in the act. Then:

  * a worker "runs" the jobs (they are deleted): a finished slot must not be enqueued again;
  * one enqueue fails on purpose, as when a connection drops: its slot must not be lost;
  * the clock jumps two days, as if every scheduler had been down: the nightly job catches up, night
    by night; the five-minute job runs once and records every slot it skipped.

Then, on cue: a rival's claim in flight when a tick claims the same slot, and a tick SIGKILLed as its
UPDATE of schedule_runs (the job's id) is about to run (killpoint.hold_statements holds it there).

A trigger copies every job that commits into `jobs_ever`, with the application_name of the scheduler
that wrote it, so the check sees duplicates even after the jobs are gone.
"""

from __future__ import annotations

import json
import secrets
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path


from course.infra import eventlog, processes
from course.core import scheduler

from course.grading.trial import Stop, Trial, describe
from course.grading.faults import killpoint
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

HOLDS, INVOICES = "release_unpaid_holds", "nightly_invoices"
HOLDS_QUEUE = "maintenance"
# Far in the future: a tick that reads the wall clock instead of `now` finds nothing due, and says so fast.
DAY = datetime(2099, 3, 14, tzinfo=UTC)
SCHEDULERS = 3
STEP_TIMEOUT_S = 30.0
CHILD_TIMEOUT_S = 60.0  # a loaded 2-core machine may take a while to start a Python process

INSTRUMENTS = """
CREATE TABLE jobs_ever (id bigint, type text, slot text, by text, at float8);
CREATE TABLE fault_plan (fail_at bigint);
INSERT INTO fault_plan VALUES (NULL);
CREATE SEQUENCE enqueue_attempts;
CREATE FUNCTION slow_or_failing_enqueue() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_sleep(0.05);  -- a slow insert widens the gap between "is it taken?" and "take it"
    IF nextval('enqueue_attempts') = (SELECT fail_at FROM fault_plan) THEN
        RAISE EXCEPTION 'injected by the check: this enqueue failed, as when the connection drops mid-way';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER slow_or_failing_enqueue BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION slow_or_failing_enqueue();
-- AFTER: only rows really inserted (not those ON CONFLICT DO NOTHING dropped); kept if they commit
CREATE FUNCTION remember_job() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO jobs_ever VALUES (NEW.id, NEW.type, NEW.payload->>'slot', current_setting('application_name'),
                                  extract(epoch FROM clock_timestamp()));
    RETURN NEW;
END $$;
CREATE TRIGGER remember_job AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION remember_job();
"""
ARM_FAULT = """
UPDATE fault_plan SET fail_at = (SELECT CASE WHEN is_called THEN last_value ELSE 0 END + 1 FROM enqueue_attempts)
"""


def at(days: int, hh: int, mm: int) -> datetime:
    return DAY + timedelta(days=days, hours=hh, minutes=mm)


def hhmm(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%H:%M") if moment.date() == DAY.date() else moment.strftime("%d %b %H:%M")


# -- 08.plan ---------------------------------------------------------------------------------------

SLOTS = [at(0, 2, 0) + timedelta(minutes=5 * k) for k in range(4)]
POLICIES = ("catch_up", "skip")


def _times(slots) -> list[str]:
    return [hhmm(s) if isinstance(s, datetime) else repr(s) for s in slots]


def _plan_of(t: Trial, plan, due, policy, name: str | None = None):
    words = f"plan([{', '.join(_times(due))}], {policy!r})"
    result = t.call(plan, list(due), policy, during=f"{name}: {words}" if name else words)
    if not (hasattr(result, "run") and hasattr(result, "skip")):
        t.expect(f"{words} returns a Plan(run=..., skip=...)", ok=False, got=result,
                 note="return scheduler.Plan(run=[...], skip=[...])")
        raise Stop
    return list(result.run), list(result.skip), words


@exercise_check("08.plan")
def plan_check(t: Trial, plan):
    # The boundaries first, with every policy: a real tick sees nothing due almost every time, and
    # exactly one slot due (nothing missed) most of the rest.
    for name, due in (("nothing due: nothing to run or skip, with either policy", []),
                      ("one slot due is simply run, whatever the policy", SLOTS[1:2])):
        wrong = None
        for policy in POLICIES:
            got_run, got_skip, words = _plan_of(t, plan, due, policy, name)
            if (got_run, got_skip) != (list(due), []):
                wrong = (words, got_run, got_skip)
                break
        t.expect(name, ok=wrong is None, got={"run": _times(wrong[1]), "skip": _times(wrong[2])} if wrong else None,
                 expected={"run": _times(due), "skip": []}, example=wrong[0] if wrong else None)
    cases = [  # (name, due, policy, run, skip)
        ("catch_up runs every missed slot, oldest first", SLOTS, "catch_up", SLOTS, []),
        ("skip runs only the latest slot", SLOTS, "skip", SLOTS[-1:], SLOTS[:-1]),
        ("two slots due (the least that was missed): catch_up runs both", SLOTS[2:], "catch_up", SLOTS[2:], []),
        ("two slots due: skip runs the later one and records the earlier", SLOTS[2:], "skip", SLOTS[3:], SLOTS[2:3]),
    ]
    for name, due, policy, run, skip in cases:
        got_run, got_skip, words = _plan_of(t, plan, due, policy, name)
        t.expect(name, got={"run": _times(got_run), "skip": _times(got_skip)},
                 expected={"run": _times(run), "skip": _times(skip)}, example=words)

    lost = []
    for policy in ("catch_up", "skip"):
        got_run, got_skip, words = _plan_of(t, plan, SLOTS, policy)
        if sorted(got_run + got_skip) != SLOTS:
            lost = [words, got_run, got_skip]
            break
    t.expect("no slot silently lost: each due slot is either run or recorded as skipped", ok=not lost,
             got={"run": _times(lost[1]), "skip": _times(lost[2])} if lost else None,
             expected=f"the four slots {', '.join(_times(SLOTS))}, each once, between run and skip",
             example=lost[0] if lost else None,
             note="a skipped slot goes in `skip`, so the scheduler writes it down" if lost else None)

    try:
        plan(list(SLOTS), "sometimes")
        refused, got = False, "it returned a plan"
    except NotImplementedError:
        raise
    except Exception as error:
        refused, got = True, None
        del error
    t.expect("an unknown policy is refused, not guessed", ok=refused, got=got,
             expected="an exception (ValueError, say)", example="plan([02:00, ...], 'sometimes')",
             note="a typo in a schedule must stop the scheduler, not quietly catch up or skip" if not refused else None)


# -- 08.tick: the scheduler processes --------------------------------------------------------------


class _Run:
    """Three scheduler processes running the learner's tick on a sandbox, and what they did."""

    def __init__(self, t: Trial, tick):
        self.t = t
        self.box = t.scratch()
        conn = self.box.conn
        scheduler.install(conn)
        scheduler.add(conn, HOLDS, every=timedelta(minutes=5), first=at(0, 1, 50), on_missed="skip",
                      queue_name=HOLDS_QUEUE)  # not the default queue: the job must go where its schedule says
        scheduler.add(conn, INVOICES, every=timedelta(days=1), first=at(0, 2, 0), on_missed="catch_up")
        conn.execute(INSTRUMENTS)
        # Job ids unlike a fresh table's 1, 2, 3 (a literal copied from a demo must not match one).
        conn.execute("SELECT setval(pg_get_serial_sequence('jobs', 'id'), 4100)")
        self.workdir = Path(tempfile.mkdtemp(prefix="course-lab08-"))
        self.history = self.workdir / "history.jsonl"
        self.started_at = time.time()
        spec = {"conninfo": self.box.conninfo, "tick": tick, "history": str(self.history),
                "started_at": self.started_at}
        self.spec = processes.pickle_for_child(spec, "lab08-schedulers")
        self.children: list[processes.Child] = []

    def start(self) -> None:
        self.children = [processes.python(f"scheduler-{n + 1}", "course.grading.checks.lab08", str(self.spec),
                                          f"scheduler-{n + 1}") for n in range(SCHEDULERS)]

    def stop(self) -> None:
        for child in self.children:
            if child.alive():
                child.terminate(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def move_clock(self, to: datetime, what: str) -> None:
        """Move the clock and wait until all three have finished a tick at `to` (fail fast if they cannot)."""
        conn = self.box.conn
        errors_before = {beat.name: beat.errors for beat in scheduler.heartbeats(conn)}
        scheduler.set_clock(conn, to)
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while True:
            beats = {beat.name: beat for beat in scheduler.heartbeats(conn)}
            behind = [child for child in self.children if child.name not in beats
                      or beats[child.name].clock_seen is None or beats[child.name].clock_seen < to]
            if not behind:
                return
            for child in behind:
                beat = beats.get(child.name)
                failing = beat is not None and beat.errors - errors_before.get(child.name, 0) >= 5
                if not child.alive() or failing or time.monotonic() > deadline:
                    self._stuck(child, beat, to, what)
            time.sleep(0.02)

    def _stuck(self, child: processes.Child, beat, to: datetime, what: str) -> None:
        if not child.alive():
            state = f"it exited (code {child.wait()})"
        elif beat is not None and beat.last_error:
            state = f"its tick keeps raising {beat.last_error}"
        else:
            state = f"no tick finished within {STEP_TIMEOUT_S:g} s"
        log = "\n".join(line for line in child.log_tail(40).splitlines() if " INFO " not in line)[-1500:]
        self.t.expect(f"three schedulers tick at {hhmm(to)} ({what})", ok=False, got=f"{child.name}: {state}",
                      note=f"the end of {child.name}'s log:\n{log}" if log else None)
        raise Stop

    # -- what happened -----------------------------------------------------------------------------

    def enqueued(self) -> dict[tuple[str, datetime | str], list[tuple[int, str, float]]]:
        """(task, slot) -> the jobs that committed for it: (id, which scheduler, seconds into the check)."""
        found = defaultdict(list)
        for job_id, job_type, slot, by, moment in self.box.conn.execute(
                "SELECT id, type, slot, by, at FROM jobs_ever ORDER BY at"):
            who = by or "your tick, called in this process"
            found[(job_type, _parsed(slot))].append((job_id, who, moment - self.started_at))
        return found

    def decided(self) -> dict[tuple[str, datetime], str]:
        return {(r.task, r.slot): r.outcome for r in scheduler.runs(self.box.conn)}

    def ticks(self) -> list[dict]:
        events = eventlog.read(self.history)
        return [{**event, "clock": datetime.fromisoformat(event["clock"])} for event in events]

    def returned_ids(self) -> list:
        found = []
        for event in self.ticks():
            if event["kind"] == "ticked":
                value = event.get("returned")
                found.extend(value if isinstance(value, list) else [value])
        return found

    def timeline(self, task: str, slot: datetime) -> str:
        """The jobs committed for this slot, and what each scheduler's tick did at the clock time that
        decided it (the first clock time at or after the slot)."""
        entries = [(moment, f"{by:<12} committed job {job_id} for this slot")
                   for job_id, by, moment in self.enqueued().get((task, slot), [])]
        ticks = self.ticks()
        deciding = min((e["clock"] for e in ticks if e["clock"] >= slot), default=None)
        for event in ticks:
            if event["clock"] == deciding:
                what = (f"returned {event.get('returned')}" if event["kind"] == "ticked"
                        else f"raised {event.get('detail')}")
                entries.append((event["t"], f"{event['name']:<12} its tick at {hhmm(deciding)} {what}"))
        lines = [f"timeline of {task} {hhmm(slot)} (seconds from the start of the check):"]
        lines += [f"  {moment:6.2f}  {text}" for moment, text in sorted(entries)]
        lines.append(f"  schedule_runs says: {self.decided().get((task, slot)) or 'nothing (no row)'}")
        return "\n".join(lines)


def _parsed(slot: str | None) -> datetime | str:
    try:
        return datetime.fromisoformat(slot)
    except (TypeError, ValueError):
        return f"no slot in the payload ({slot!r})"


def _expect_once(t: Trial, run: _Run, slots: list[tuple[str, datetime]], name: str, *, required: bool) -> None:
    """Each of these (task, slot) has exactly one job; report the first that does not."""
    enqueued, decided = run.enqueued(), run.decided()
    for task, slot in slots:
        jobs = enqueued.get((task, slot), [])
        if len(jobs) == 1:
            continue
        who = ", ".join(f"job {job_id} by {by}" for job_id, by, _ in jobs) or "none"
        if not jobs and decided.get((task, slot)) == "enqueued":
            why = ("the slot is recorded as enqueued, but its job never committed: claim the slot and enqueue "
                   "its job in one transaction, so that a failed enqueue takes the claim back with it")
        elif not jobs:
            why = "no scheduler enqueued it (is the slot in the job's payload, {\"slot\": ...}?)"
        else:
            why = ("several schedulers enqueued it: only the one whose INSERT ... ON CONFLICT DO NOTHING "
                   "got a row back may enqueue")
        t.expect(name, ok=False, got=f"{len(jobs)} job(s): {who}", expected="exactly 1 job",
                 example=f"{task}, slot {hhmm(slot)}", note=why + "\n" + run.timeline(task, slot))
        if required:
            raise Stop
        return
    t.expect(name, ok=True)


@exercise_check("08.tick")
def tick_check(t: Trial, tick):
    run = _Run(t, tick)
    conn = run.box.conn
    try:
        scheduler.set_clock(conn, at(0, 1, 52))
        returned = t.call(tick, conn, at(0, 1, 52), during="tick(conn, 01:52) in this process")
        first = [f"{task} {hhmm(slot)} x{len(jobs)}" if isinstance(slot, datetime) else f"{task} {slot}"
                 for (task, slot), jobs in run.enqueued().items()]
        t.require("one tick at 01:52 enqueues the 01:50 slot of the five-minute job", got=first,
                  expected=[f"{HOLDS} 01:50 x1"], example="one scheduler, clock at 01:52, first slot 01:50",
                  note=None if first else ("nothing was enqueued here: use the `conn` you are given (its schema "
                                           "is the check's) and the `now` you are given (the check's clock is "
                                           "simulated, in the year 2099), not the wall clock"))
        first_ids = [job_id for jobs in run.enqueued().values() for job_id, _, _ in jobs]
        t.expect("returns the ids of the jobs it enqueued", got=_sorted(returned), expected=first_ids,
                 example="tick(conn, 01:52)")
        queues = [q for (q,) in conn.execute("SELECT queue FROM jobs WHERE id = ANY(%s)", [first_ids])]
        t.expect(f"the job goes on its schedule's queue ({HOLDS_QUEUE!r})", got=queues, expected=[HOLDS_QUEUE],
                 example=f"{HOLDS}, whose schedule says queue {HOLDS_QUEUE!r}; tick(conn, 01:52)",
                 note="queue.enqueue(..., queue=schedule.queue)")
        stored = [(r.outcome, r.job_id) for r in scheduler.runs(conn, HOLDS) if r.slot == at(0, 1, 50)]
        t.expect("the slot's row in schedule_runs holds its job's id", got=stored, expected=[("enqueued", *first_ids)],
                 example=f"{HOLDS} 01:50 after tick(conn, 01:52)",
                 note="UPDATE schedule_runs SET job_id = <the id queue.enqueue returned> ... for this task and slot")

        run.start()
        run.move_clock(at(0, 1, 53), "they start")
        for minute in (55, 60, 65):
            run.move_clock(at(0, 1, minute), "one slot after another")
        _expect_once(t, run, [(HOLDS, at(0, 1, 55)), (HOLDS, at(0, 2, 0)), (INVOICES, at(0, 2, 0)),
                              (HOLDS, at(0, 2, 5))],
                     "three schedulers ticking at the same moment enqueue each slot once", required=True)

        conn.execute("DELETE FROM jobs")  # a worker ran them all: the jobs table forgets finished jobs
        run.move_clock(at(0, 2, 7), "after a worker ran every job")
        again = [key for key, jobs in run.enqueued().items() if len(jobs) > 1]
        t.require("a slot whose job has finished is not enqueued again", ok=not again,
                  got=(f"{again[0][0]} {hhmm(again[0][1])}: {len(run.enqueued()[again[0]])} jobs" if again else None),
                  expected="no new job at 02:07 (nothing new is due)",
                  example="the jobs of 01:50 to 02:05 ran and were deleted; the clock moves to 02:07",
                  note=("what records a slot must outlive its job: keep it in schedule_runs, not in the jobs "
                        "table (a unique_key there holds only while the job waits)\n"
                        + run.timeline(*again[0])) if again else None)

        conn.execute(ARM_FAULT)
        run.move_clock(at(0, 2, 10), "one enqueue fails on purpose")
        _expect_once(t, run, [(HOLDS, at(0, 2, 10))],
                     "a failed enqueue does not lose its slot: its claim rolls back with it, and a tick retries",
                     required=True)

        run.move_clock(at(2, 2, 6), "after two days without a tick")
        _expect_once(t, run, [(INVOICES, at(1, 2, 0)), (INVOICES, at(2, 2, 0))],
                     "catch_up: each missed night gets its own job", required=False)
        _expect_once(t, run, [(HOLDS, at(2, 2, 5))], "skip: the latest missed slot runs, once", required=False)
        _expect_skipped(t, run)

        committed = sorted(job_id for jobs in run.enqueued().values() for job_id, by, _ in jobs
                           if by.startswith("scheduler-"))
        t.expect("in the scheduler processes too, tick returns the ids of the jobs it enqueued",
                 got=_sorted(run.returned_ids()), expected=committed,
                 example="every tick of the three scheduler processes, put together")
        stored = {(r.task, r.slot): r.job_id for r in scheduler.runs(conn) if r.outcome == "enqueued"}
        wrong = [(task, slot, stored.get((task, slot)), jobs[0][0]) for (task, slot), jobs in run.enqueued().items()
                 if len(jobs) == 1 and stored.get((task, slot)) != jobs[0][0]]
        t.expect("every enqueued slot's row in schedule_runs holds the id of its own job", ok=not wrong,
                 got=(f"{wrong[0][0]} {hhmm(wrong[0][1])}: job_id {wrong[0][2]}, its job is {wrong[0][3]}"
                      if wrong else None), expected="job_id = the id queue.enqueue returned for that slot",
                 example="every slot the three schedulers enqueued")
        run.stop()
        _lose_a_race_on_cue(t, run, tick)
        _killed_before_storing_the_job_id(t, run, tick)
    finally:
        run.stop()


def _lose_a_race_on_cue(t: Trial, run: _Run, tick) -> None:
    """The race placed on purpose: another scheduler's claim of the slot is in flight (inserted, not yet
    committed) when this tick claims it; then it commits. The tick must lose quietly: no job, no error."""
    conn, slot = run.box.conn, at(2, 2, 10)
    scheduler.set_clock(conn, slot)
    rival = run.box.connect()
    outcome: dict = {}
    try:
        rival.execute("BEGIN")
        rival.execute("INSERT INTO schedule_runs (task, slot, outcome) VALUES (%s, %s, 'enqueued')", [HOLDS, slot])

        def ticking():
            with run.box.connect() as own:
                try:
                    outcome["returned"] = tick(own, slot)
                except Exception as error:  # noqa: BLE001 (learner code)
                    outcome["raised"] = error

        worker = threading.Thread(target=ticking, daemon=True)
        worker.start()
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while worker.is_alive() and time.monotonic() < deadline:  # until the tick waits on the rival's row
            if conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                            "AND wait_event_type = 'Lock' AND pid <> %s", [rival.info.backend_pid]).fetchone()[0]:
                break
            time.sleep(0.01)
        rival.execute("COMMIT")
        worker.join(STEP_TIMEOUT_S)
    finally:
        rival.close()
    if "raised" in outcome and isinstance(outcome["raised"], NotImplementedError):
        raise NotImplementedError
    jobs = run.enqueued().get((HOLDS, slot), [])
    raised = outcome.get("raised")
    t.expect("losing the race for a slot (another scheduler's claim commits first): no job and no error",
             ok=raised is None and not jobs, got=(f"raised {describe(raised).splitlines()[0]}" if raised
                                                 else f"{len(jobs)} job(s) for the slot"),
             expected="no job, no exception", example=f"{HOLDS} {hhmm(slot)}: another session inserted its claim and "
                                                      "committed while this tick's INSERT waited for it",
             note="INSERT ... ON CONFLICT (task, slot) DO NOTHING RETURNING slot: no row back means another "
                  "scheduler has the slot; a tick that raises instead skips every schedule after this one")


def _killed_before_storing_the_job_id(t: Trial, run: _Run, tick) -> None:
    """The kill placed on purpose: a tick in a process of its own is SIGKILLed as its UPDATE of
    schedule_runs (the job's id) is about to run. Inside the claim's transaction the crash takes the claim
    and the job back, and the next tick tries the slot again; an UPDATE moved after the commit leaves a
    slot recorded as enqueued whose row never gets its job's id."""
    box, slot = run.box, at(2, 2, 15)
    key = secrets.randbelow(2**31 - 1) + 1
    killpoint.hold_statements(box.conn, "schedule_runs", "UPDATE", key)
    try:
        what = killpoint.run_and_kill(box, _tick_at(tick), slot, when=killpoint.waiting_on_a_held_statement(box),
                                      env={}, timeout_s=CHILD_TIMEOUT_S)
    finally:
        killpoint.release_statements(box.conn, "schedule_runs", key)  # waits for the killed session's end
    jobs = [job_id for job_id, _, _ in run.enqueued().get((HOLDS, slot), [])]
    stored = [(r.outcome, r.job_id) for r in scheduler.runs(box.conn, HOLDS) if r.slot == slot]
    t.expect("killed after enqueueing a slot's job and before storing its id: the slot's row holds its job's id, "
             "or neither is there", ok=stored == [("enqueued", *jobs)] if jobs else not stored,
             got=f"schedule_runs: {stored or 'no row'}; committed jobs: {jobs or 'none'}",
             expected="[('enqueued', <its job's id>)] with its job, or no row and no job",
             example=f"tick(conn, {hhmm(slot)}) in a process of its own, "
                     + ("SIGKILLed as its UPDATE of schedule_runs was about to run" if what == "killed" else what),
             note="store the job's id in its row's job_id inside the transaction that claimed the slot and "
                  "enqueued the job: a crash after that commit leaves the slot enqueued with no job id, and "
                  "no tick ever fills it in")


def _tick_at(tick):
    """tick as a kill-point handler: handler(job, conn), the job being the clock time to tick at."""
    def handler(now, conn):
        tick(conn, now)
    return handler


def _expect_skipped(t: Trial, run: _Run) -> None:
    """The five-minute job after the jump: every older missed slot is recorded as skipped, with no job."""
    schedule = next(s for s in scheduler.schedules(run.box.conn) if s.task == HOLDS)
    missed = scheduler.slots_between(schedule, at(0, 2, 10), at(2, 2, 0))
    decided, enqueued = run.decided(), run.enqueued()
    unrecorded = [s for s in missed if decided.get((HOLDS, s)) != "skipped"]
    ran = [s for s in missed if enqueued.get((HOLDS, s))]
    if unrecorded:
        got = (f"{len(unrecorded)} not recorded as skipped (the first, {hhmm(unrecorded[0])}: schedule_runs says "
               f"{decided.get((HOLDS, unrecorded[0]), 'nothing')})")
    else:
        got = f"{len(ran)} got a job (the first: {hhmm(ran[0])})" if ran else None
    t.expect(f"skip: the {len(missed)} older missed slots are recorded as skipped, with no job",
             ok=not unrecorded and not ran, got=got,
             expected=f"{len(missed)} rows with outcome 'skipped' in schedule_runs",
             example=f"{HOLDS}, {hhmm(missed[0])} to {hhmm(missed[-1])}, while no scheduler ticked",
             note="write each skipped slot down (outcome 'skipped'): a missed run is decided, never silently lost")


def _sorted(value) -> list:
    try:
        return sorted(value)
    except TypeError:
        return [value]


# -- 08.quiz ---------------------------------------------------------------------------------------


@exercise_check("08.quiz")
def quiz(t: Trial, q1, q2, q3):
    ask(t, "q1", q1, "b", "what makes three schedulers enqueue a slot once",
        "two schedulers can both see \"not there yet\" before either inserts")
    ask(t, "q2", q2, "c", "what the 02:40 restart does with the missed slots",
        "count the five-minute slots from 01:35 to 02:40, and which policy each task has")
    ask(t, "q3", q3, "a", "why the nightly job must be idempotent anyway",
        "the scheduler enqueues once; does a job run only once?")


# -- a scheduler process running the learner's tick --------------------------------------------------


def _runner(spec_path: str, name: str) -> int:
    """One of the check's scheduler processes: course.core.scheduler.run with the learner's tick, traced."""
    import logging

    spec = processes.unpickle(spec_path)
    learner_tick = spec["tick"]

    def traced_tick(conn, now):
        clock = now.astimezone(UTC).isoformat()
        try:
            returned = learner_tick(conn, now)
        except Exception as error:
            eventlog.record(spec["history"], since=spec["started_at"], name=name, kind="raised", clock=clock,
                            detail=describe(error).splitlines()[0])
            raise
        try:
            json.dumps(returned)
        except TypeError:
            returned = repr(returned)
        eventlog.record(spec["history"], since=spec["started_at"], name=name, kind="ticked", clock=clock,
                        returned=returned)
        return returned

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stderr)
    return scheduler.run(spec["conninfo"], name=name, clock=scheduler.SIMULATED, tick_fn=traced_tick,
                         poll_s=0.05)


if __name__ == "__main__":
    raise SystemExit(_runner(sys.argv[1], sys.argv[2]))

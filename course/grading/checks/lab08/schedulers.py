"""08.tick's last stage: the learner's tick inside three real scheduler processes (course.core.scheduler.run,
started as `python -m course.grading.checks.lab08.schedulers SPEC NAME`), all on one simulated clock the
check moves: they start at 01:53, then 01:55, 02:00 and 02:05 come slot by slot, then the clock jumps two
days, as if every scheduler had been down. Every enqueue is slowed by 50 ms in the database, so that a
race the earlier stages missed has room to show.

Everything waits on cues, never on a timer: the clock moves only once each process's heartbeat says it
finished a tick at the last move, and the deadlines (minutes) only bound a process that hangs. A trigger
copies every job that commits into `jobs_ever` with the name of the scheduler that wrote it, so
duplicates show even after a worker deleted the jobs.
"""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from course.infra import eventlog, processes
from course.core import scheduler

from course.grading import differential as diff
from course.grading.faults import ticking
from course.grading.trial import Trial

HOLDS, INVOICES = "release_unpaid_holds", "nightly_invoices"
HOLDS_QUEUE = "maintenance"
DAY = datetime(2099, 3, 14, tzinfo=UTC)  # far in the future: the wall clock finds nothing due
SCHEDULERS = 3
START_TIMEOUT_S = 240.0  # bounds a hang only: a loaded 2-core machine may take a minute to start Python
STEP_TIMEOUT_S = 180.0  # bounds a hang only: each step is a few ticks
FAILED_TICKS = 5  # a process whose tick raised this often since the last move is stuck

INSTRUMENTS = """
CREATE TABLE jobs_ever (id bigint, type text, slot text, by text, at float8);
CREATE FUNCTION slow_enqueue() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    PERFORM pg_sleep(0.05);  -- a slow insert widens the gap between "is it taken?" and "take it"
    RETURN NEW;
END $$;
CREATE TRIGGER slow_enqueue BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION slow_enqueue();
-- AFTER: only rows really inserted (not those ON CONFLICT DO NOTHING dropped); kept if they commit
CREATE FUNCTION remember_job() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    INSERT INTO jobs_ever VALUES (NEW.id, NEW.type, NEW.payload->>'slot', current_setting('application_name'),
                                  extract(epoch FROM clock_timestamp()));
    RETURN NEW;
END $$;
CREATE TRIGGER remember_job AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION remember_job();
"""

STEPS = "three scheduler processes running your tick each finish a tick at every move of the clock"
ONCE = ("three scheduler processes ticking at the same moments decide each slot once, each enqueued slot with one "
        "job and its id, over a night and a two-day outage")
IDS = "in the scheduler processes too, tick returns the ids of the jobs it enqueued"
CHECKS = (STEPS, ONCE, IDS)


def at(days: int, hh: int, mm: int) -> datetime:
    return DAY + timedelta(days=days, hours=hh, minutes=mm)


def hhmm(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%H:%M") if moment.date() == DAY.date() else moment.strftime("%d %b %H:%M")


MOVES = [(at(0, 1, 53), "they start"), (at(0, 1, 55), "one slot after another"), (at(0, 2, 0), "one slot after another"),
         (at(0, 2, 5), "one slot after another"), (at(2, 2, 6), "after two days without a tick")]


class Stage:
    """Three scheduler processes running the learner's tick on a schema of their own, and what they did."""

    def __init__(self, t: Trial, tick):
        self.box = t.scratch()
        conn = self.box.conn
        scheduler.install(conn)
        self.schedules = [
            scheduler.add(conn, HOLDS, every=timedelta(minutes=5), first=at(0, 1, 50), on_missed="skip",
                          queue_name=HOLDS_QUEUE),
            scheduler.add(conn, INVOICES, every=timedelta(days=1), first=at(0, 2, 0), on_missed="catch_up")]
        conn.execute(INSTRUMENTS)
        conn.execute("SELECT setval(pg_get_serial_sequence('jobs', 'id'), 4100)")  # ids unlike a demo's 1, 2, 3
        # What each tick returned decides a check: the scheduler processes run the learner's tick, so each
        # writes the history through a pipe of its own, and only this process writes the file (eventlog.Kept)
        self.history = eventlog.Kept("course-lab08-")
        self.started_at = time.time()
        self.spec = processes.pickle_for_child({"conninfo": self.box.conninfo, "tick": tick, "history": self.history.path,
                                                "started_at": self.started_at}, "lab08-schedulers")
        self.children: list[processes.Child] = []

    def start(self) -> None:
        scheduler.set_clock(self.box.conn, MOVES[0][0])
        self.children = []
        for n in range(SCHEDULERS):
            name = f"scheduler-{n + 1}"
            feed = self.history.feed(name=name)
            self.children.append(processes.python(name, ticking.__name__, str(self.spec), name, env=feed.env,
                                                  pass_fds=feed.fds))
            feed.started(self.children[-1].pid)

    def stop(self) -> None:
        for child in self.children:
            if child.alive():
                child.terminate(timeout=10)
        self.children = []
        self.history.close()
        Path(self.history.path).unlink(missing_ok=True)
        self.spec.unlink(missing_ok=True)

    def ticked(self, to: datetime, what: str, timeout_s: float) -> diff.Finding | None:
        """Wait until all three have finished a tick at clock time `to`: None, or why one never will."""
        conn = self.box.conn
        errors_before = {beat.name: beat.errors for beat in scheduler.heartbeats(conn)}
        if scheduler.clock_now(conn) != to:
            scheduler.set_clock(conn, to)
        deadline = time.monotonic() + timeout_s
        while True:
            beats = {beat.name: beat for beat in scheduler.heartbeats(conn)}
            behind = [child for child in self.children if child.name not in beats
                      or beats[child.name].clock_seen is None or beats[child.name].clock_seen < to]
            if not behind:
                return None
            for child in behind:
                beat = beats.get(child.name)
                failing = beat is not None and beat.errors - errors_before.get(child.name, 0) >= FAILED_TICKS
                if not child.alive() or failing or time.monotonic() > deadline:
                    return self._stuck(child, beat, to, what, timeout_s)
            time.sleep(0.02)

    def _stuck(self, child: processes.Child, beat, to: datetime, what: str, timeout_s: float) -> diff.Finding:
        if not child.alive():
            state = f"it exited (code {child.wait()})"
        elif beat is not None and beat.last_error:
            state = f"its tick keeps raising {beat.last_error}"
        else:
            state = f"no tick finished within {timeout_s:g} s"
        log = "\n".join(line for line in child.log_tail(40).splitlines() if " INFO " not in line)[-1500:]
        return diff.Finding(STEPS, got=f"{child.name}: {state}", expected=f"a tick at {hhmm(to)} in every process",
                            note=f"the end of {child.name}'s log:\n{log}" if log else None,
                            example=f"the clock moved to {hhmm(to)} ({what})")

    # -- what happened -----------------------------------------------------------------------------------

    def enqueued(self) -> dict[tuple[str, datetime | str], list[tuple[int, str, float]]]:
        """(job type, slot) -> the jobs that committed for it: (id, which scheduler, seconds into the stage)."""
        found = defaultdict(list)
        for job_id, job_type, slot, by, moment in self.box.conn.execute(
                "SELECT id, type, slot, by, at FROM jobs_ever ORDER BY at"):
            found[(job_type, _parsed(slot))].append((job_id, by or "?", moment - self.started_at))
        return found

    def ticks(self) -> list[dict]:
        self.history.settle()  # a tick's line is written before its heartbeat commits, which ticked() waited for
        return [{**event, "clock": datetime.fromisoformat(event["clock"])} for event in eventlog.read(self.history.path)]

    def timeline(self, task: str, slot: datetime) -> str:
        """The jobs committed for this slot, and what each scheduler's tick did at the clock time that decided it."""
        entries = [(moment, f"{by:<12} committed job {job_id} for this slot")
                   for job_id, by, moment in self.enqueued().get((task, slot), [])]
        ticks = self.ticks()
        deciding = min((e["clock"] for e in ticks if e["clock"] >= slot), default=None)
        for event in ticks:
            if event["clock"] == deciding:
                what = f"returned {event.get('returned')}" if event["kind"] == "ticked" else f"raised {event.get('detail')}"
                entries.append((event["t"], f"{event['name']:<12} its tick at {hhmm(deciding)} {what}"))
        decided = {(r.task, r.slot): r for r in scheduler.runs(self.box.conn)}.get((task, slot))
        lines = [f"timeline of {task} {hhmm(slot)} (seconds from the start of the stage):"]
        lines += [f"  {moment:6.2f}  {text}" for moment, text in sorted(entries)]
        lines.append(f"  schedule_runs says: {f'{decided.outcome}, job_id {decided.job_id}' if decided else 'no row'}")
        return "\n".join(lines)

    def judge(self) -> list[diff.Finding]:
        """Each slot the clock moves made due decided as the reference decides it, each enqueued slot with one
        committed job (and its id in the row), no job for anything else; the ids the ticks returned."""
        expected = _decisions(self.schedules, [to for to, _ in MOVES])
        decided = {(r.task, r.slot): r for r in scheduler.runs(self.box.conn)}
        enqueued = self.enqueued()
        findings = []
        for (task, slot), outcome in sorted(expected.items()):
            row = decided.get((task, slot))
            jobs = enqueued.get((task, slot), [])
            want = 1 if outcome == "enqueued" else 0
            ok = row is not None and row.outcome == outcome and len(jobs) == want and (
                not want or row.job_id == jobs[0][0])
            if not ok:
                who = ", ".join(f"job {job_id} by {by}" for job_id, by, _ in jobs) or "no job"
                findings.append(diff.Finding(
                    ONCE, got=f"{row.outcome if row else 'no row'} (job_id {row.job_id if row else None}); {who}",
                    expected=f"{outcome}" + (", its one job's id in the row" if want else ", no job"),
                    note=self.timeline(task, slot), example=f"{task}, slot {hhmm(slot)}"))
                break
        strays = [key for key in enqueued if key not in expected]
        if strays and not findings:
            key = strays[0]
            findings.append(diff.Finding(ONCE, got=f"{len(enqueued[key])} job(s) for {key[0]} {key[1]}",
                                         expected="jobs only for the slots the clock made due",
                                         example=f"{key[0]}, slot {key[1]}"))
        committed = sorted(job_id for jobs in enqueued.values() for job_id, by, _ in jobs if by.startswith("scheduler-"))
        returned = sorted(i for event in self.ticks() if event["kind"] == "ticked"
                          for i in (event.get("returned") if isinstance(event.get("returned"), list) else
                                    [event.get("returned")]) if i is not None)
        if returned != committed:
            findings.append(diff.Finding(IDS, got=returned, expected=committed,
                                         example="every tick of the three scheduler processes, put together"))
        return findings


def _decisions(schedules: list[scheduler.Schedule], moves: list[datetime]) -> dict[tuple[str, datetime], str]:
    """What the reference decides for each slot, tick after tick at those clock times."""
    decided: dict[tuple[str, datetime], str] = {}
    for schedule in schedules:
        last = None
        for now in moves:
            plan = scheduler.plan(scheduler.slots_between(schedule, last, now), schedule.on_missed)
            decided.update({(schedule.task, slot): "skipped" for slot in plan.skip})
            decided.update({(schedule.task, slot): "enqueued" for slot in plan.run})
            last = max(plan.run + plan.skip, default=last)
    return decided


def _parsed(slot: str | None) -> datetime | str:
    try:
        return datetime.fromisoformat(slot)
    except (TypeError, ValueError):
        return f"no slot in the payload ({slot!r})"


def run(t: Trial, tick) -> list[diff.Finding]:
    """The stage, start to end; its findings (none: every check of CHECKS passed)."""
    stage = Stage(t, tick)
    try:
        stage.start()
        for number, (to, what) in enumerate(MOVES):
            stuck = stage.ticked(to, what, START_TIMEOUT_S if number == 0 else STEP_TIMEOUT_S)
            if stuck is not None:
                return [stuck]
        return stage.judge()
    finally:
        stage.stop()

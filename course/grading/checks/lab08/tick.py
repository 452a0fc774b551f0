"""08.tick, judged three ways, all on cue, none by a timer:

1. Differentially, on schedule tables drawn from everything the statement allows (world.py): the
   learner's tick and the reference's (course.core.scheduler.tick) each run, as a scheduler runs them
   (on an autocommit connection, the scenario committed), and what they leave is compared slot by slot:
   how schedule_runs decided each slot, the job each enqueued slot got (its queue, type and payload), the
   row's job_id, the ids returned. An enqueue that fails on purpose is followed by the next tick; a worker
   that runs every job is followed by another tick at the same moment.
2. Beside another scheduler: scheduler B ticks (the reference's tick, then the learner's) just before
   each of the learner's statements; B holds its claim of the slot, uncommitted, while the learner's tick
   runs. Together they must leave what one tick alone leaves, each returning its own jobs, neither raising.
3. Killed: the learner's tick loses its connection just before each of its statements, as a SIGKILLed
   scheduler does (its open transaction rolled back by the server); the next tick then runs. Every slot
   must end decided once, with its one job and the job's id.

Then, if all of that passes, three real scheduler processes run it (schedulers.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

import psycopg

from course.infra.processes import wait_until
from course.core import scheduler

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks.lab08 import schedulers
from course.grading.checks.lab08.world import (HOUR, MINUTE, DAY, INSTRUMENTS, NEW_JOBS_FROM, JOB_FIELDS, Sched, Slot,
                                               View, World, expected_view, families, hhmm, install, reader, view)
from course.grading.snapshot import State
from course.grading.trial import Attempt, Trial, short

DEFAULT_SEED = 8
SCENARIOS = 36  # six of each family
KILL_WAIT_S = 60.0  # a terminated session is gone within milliseconds; this only bounds a hang

RUNS = "ticks without an error, and changes nothing but schedule_runs and the jobs it enqueues"
USE_NOW = "uses the `now` it is given, never the wall clock (the check's clock is in 2099)"
POLICY = "follows each schedule's missed-run policy: catch_up enqueues every missed slot, skip only the latest"
SKIPPED = "records each slot the policy skips as (task, slot, 'skipped'), with no job"
CLAIMED = "each slot it runs is recorded in schedule_runs as 'enqueued', with exactly one job"
DECIDED_ONCE = "a slot whose job has finished is not enqueued again"
QUEUE = "the job goes on its schedule's queue"
ITS_JOB = "each slot's job is its schedule's: schedule.job_type, with scheduler.job_payload(schedule, slot)"
JOB_ID = "the slot's row in schedule_runs holds its job's id"
RETURNS = "returns the ids of the jobs it enqueued"
FAULT = "a failed enqueue does not lose its slot: its claim rolls back with it, and the next tick enqueues it"
RACE = ("two schedulers ticking at the same moment (the other one between any two of your statements) enqueue "
        "each slot once")
LOSE = "losing the race for a slot (another scheduler's claim commits first): no job and no error"
KILLED = ("killed between any two of its statements, then the next tick: each slot decided once, with its job "
          "and the job's id")
TICK_CHECKS = (RUNS, USE_NOW, POLICY, SKIPPED, CLAIMED, DECIDED_ONCE, QUEUE, ITS_JOB, JOB_ID, RETURNS, FAULT, RACE,
               LOSE, KILLED)

# The races and the kills run on one table the answer gets right alone: three slots due for the five-minute
# job (two skipped, 02:10 run), and for the nightly one, two missed nights to catch up (in the kills).
HOLDS = Sched("release_unpaid_holds", 5 * MINUTE, HOUR + 50 * MINUTE, "skip", queue="maintenance", decided_to=1)
RACE_WORLD = World((HOLDS,), 2 * HOUR + 12 * MINUTE)
KILL_WORLD = World((HOLDS, Sched("nightly_invoices", DAY, 2 * HOUR - 3 * DAY, "catch_up", decided_to=0,
                                 payload=(("hotel", 7),))), 2 * HOUR + 12 * MINUTE)


def ids_of(value) -> list | str:
    """What a tick returned, as the sorted ids it names; a string saying what it was otherwise."""
    if isinstance(value, (list, tuple, set, frozenset)) and all(
            isinstance(i, int) and not isinstance(i, bool) for i in value):
        return sorted(value)
    return short(value)


def reference_tick(conn: psycopg.Connection, now) -> Attempt:
    try:
        return Attempt(value=scheduler.tick(conn, now))
    except Exception as error:  # noqa: BLE001 (an injected failure, as the reference meets it)
        return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)


@dataclass
class Side:
    """One tick (and what follows it) on a world: what the first call did, the new jobs it left, the state
    then and after what followed, and the new jobs a second call after a worker's round enqueued."""
    first: Attempt
    made: list[int]
    before: State
    state: State
    again: Attempt | None = None
    again_made: tuple[int, ...] = ()


def _idle(conn: psycopg.Connection) -> None:
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:  # an answer that left one open
        conn.rollback()


class TickJudge:
    def __init__(self, t: Trial, box, tick: Callable):
        self.t, self.box, self.tick = t, box, tick
        self.conn = box.conn
        self.reader = reader(self.conn)
        self._before: dict[World, State] = {}
        self.acted = False  # whether any tick of the learner's has decided a slot or enqueued a job

    def learner(self, conn: psycopg.Connection, now) -> Attempt:
        return self.t.attempt(self.tick, conn, now)

    def _new_ids(self) -> list[int]:
        return [i for (i,) in self.conn.execute("SELECT id FROM jobs WHERE id > %s ORDER BY id", [NEW_JOBS_FROM])]

    def run(self, world: World, answer: Callable[[psycopg.Connection, object], Attempt]) -> Side:
        """The world committed, then answer(conn, now) as a scheduler calls it; then the next tick if an enqueue
        failed, a worker's round and the same tick again if the world says so."""
        conn = self.conn
        diff.clear(conn, self.reader)
        conn.execute(install(world))
        before = self.reader.read(conn)
        first = answer(conn, world.now)
        _idle(conn)
        made = self._new_ids()
        if world.fault:
            conn.execute("UPDATE tick_fault SET fail_at = NULL")
            reference_tick(conn, world.now)
            _idle(conn)
        side = Side(first, made, before, self.reader.read(conn))
        if world.again:
            highest = max(self._new_ids(), default=NEW_JOBS_FROM)
            conn.execute("DELETE FROM jobs")
            side.again = answer(conn, world.now)
            _idle(conn)
            side.again_made = tuple(i for i in self._new_ids() if i > highest)
        return side

    def before(self, world: World) -> State:
        """The world's tables as install writes them (read once per world)."""
        if world not in self._before:
            diff.clear(self.conn, self.reader)
            self.conn.execute(install(world))
            self._before[world] = self.reader.read(self.conn)
        return self._before[world]

    # -- one world, the learner's tick beside the reference's -----------------------------------------------

    def compare(self, world: World) -> diff.Finding | None:
        """The learner's tick on the world, beside what the reference leaves there (world.expected_view, held to
        the reference tick itself by the lab's tests). A difference on a world with a failing enqueue or a second
        tick is first looked for without them, so that it is told by its real cause."""
        for plainer in ({"fault": None}, {"again": False}):
            if any(getattr(world, name) != value for name, value in plainer.items()):
                found = self.compare(replace(world, **plainer))
                if found is not None:
                    return found
        ours = self.run(world, self.learner)
        got, expected = view(world, ours.state, ours.before), expected_view(world)
        self.acted = self.acted or bool(got.decided() or got.new_ids)
        if ours.first.error and not world.fault:
            return diff.Finding(RUNS, got=f"raised {ours.first.error}", expected="it returns",
                                note="a tick that raises stops this scheduler's work on every schedule after it")
        if not got.same(expected):
            return self._difference(world, ours, got, expected)
        if not ours.first.error and ids_of(ours.first.value) != sorted(ours.made):
            return diff.Finding(RETURNS, got=f"returned {short(ours.first.value)}",
                                expected=f"the ids of the jobs it enqueued: {sorted(ours.made)}",
                                note="return a list of the ids queue.enqueue gave this call's jobs (none: [])")
        if world.again and ours.again is not None and ours.again.error:
            return diff.Finding(RUNS, got=f"the second tick raised {ours.again.error}", expected="it returns")
        if world.again and ours.again_made:
            return diff.Finding(DECIDED_ONCE, got=f"the second tick enqueued {len(ours.again_made)} job(s)",
                                expected="nothing: every due slot was decided by the first tick",
                                note="what records a slot must outlive its job: keep it in schedule_runs (the "
                                     "jobs table forgets a job once it is done)")
        return None

    def _difference(self, world: World, ours: Side, got: View, expected: View) -> diff.Finding:
        if world.fault:
            return self._lost(world, got, expected)
        if not got.untouched:
            return diff.Finding(RUNS, got="it changed schedules, dead_jobs or a job it did not enqueue",
                                expected="only schedule_runs rows and new jobs")
        at_now = [key for key in expected.decided()
                  if key[1] == world.now and got.slots.get(key) != expected.slots[key]]
        if at_now and self._leaves_now(world):
            where = f"{at_now[0][0]} {hhmm(world.now)}: "
            return diff.Finding(POLICY, got=where + _slot_words(got.slots.get(at_now[0], Slot(None))),
                                expected=where + _slot_words(expected.slots[at_now[0]]),
                                note=_AT_NOW.format(now=hhmm(world.now)))
        if not got.decided() and not got.new_ids and (expected.decided() or expected.new_ids):
            return diff.Finding(USE_NOW, got="nothing enqueued or recorded", expected=_summary(expected),
                                note="use the `now` you are given and the `conn` you are given: the check's clock is "
                                     "simulated, in 2099, so a tick that reads the wall clock finds nothing due")
        for key in sorted(set(got.slots) | set(expected.slots), key=lambda k: (k[0], k[1])):
            ours_slot, theirs_slot = got.slots.get(key, Slot(None)), expected.slots.get(key, Slot(None))
            if ours_slot != theirs_slot:
                return self._slot(world, key, ours_slot, theirs_slot)
        stray = got.strays[0] if got.strays else expected.strays[0]
        return diff.Finding(ITS_JOB, got=f"a job for no due slot: {_job(stray)}", expected="one job per slot it runs",
                            note="enqueue with scheduler.job_payload(schedule, slot): the slot in the payload tells "
                                 "the job which run it is")

    def _slot(self, world: World, key, ours: Slot, theirs: Slot) -> diff.Finding:
        task, slot = key
        where = f"{task} {hhmm(slot)}: "
        got, expected = where + _slot_words(ours), where + _slot_words(theirs)
        s = world.sched(task)
        if theirs.job_id == "before":
            if ours.jobs:
                return diff.Finding(DECIDED_ONCE, got=got, expected=expected,
                                    note=f"{hhmm(slot)} was decided before this tick: a tick starts after the latest "
                                         "slot in schedule_runs, and never enqueues a decided slot again")
            return diff.Finding(RUNS, got=got, expected=expected, note="a slot decided before this tick is left as it is")
        if theirs.outcome == "skipped":
            if ours.outcome is None:
                return diff.Finding(SKIPPED, got=got, expected=expected,
                                    note="write each slot of plan.skip down (outcome 'skipped'): a missed run is "
                                         "decided, never silently lost")
            if ours.outcome == "enqueued":
                return diff.Finding(POLICY, got=got, expected=expected,
                                    note=f"{task}'s policy is skip: only the latest due slot runs")
            return diff.Finding(SKIPPED, got=got, expected=expected, note="a skipped slot gets no job")
        if theirs.outcome is None:
            note = (f"{hhmm(slot)} is after now ({hhmm(world.now)}): not due yet" if slot > world.now else
                    f"{hhmm(slot)} is not due: the latest decided slot of {task} is where a tick starts")
            return diff.Finding(POLICY, got=got, expected=expected, note=note)
        if ours.outcome is None and ours.jobs:
            if self._enqueues_again(world):
                return diff.Finding(DECIDED_ONCE, got=got, expected=expected,
                                    note="once the job has run, nothing remembers the slot, and the next tick enqueues "
                                         "it again: record it in schedule_runs (the jobs table forgets a job once it "
                                         "is done)")
            return diff.Finding(CLAIMED, got=got, expected=expected,
                                note="INSERT INTO schedule_runs (task, slot, outcome) VALUES (..., 'enqueued') ON "
                                     "CONFLICT DO NOTHING RETURNING ..., in the transaction that enqueues the job")
        if ours.outcome != "enqueued":
            return diff.Finding(POLICY, got=got, expected=expected,
                                note=f"{task}'s policy is {s.on_missed}: {hhmm(slot)} is a slot it runs")
        if len(ours.jobs) != 1:
            return diff.Finding(CLAIMED, got=got, expected=expected,
                                note="enqueue exactly once for each slot you claim, and only when the claim's INSERT "
                                     "returned a row" if ours.jobs else
                                     "the slot is recorded as enqueued but has no job: enqueue it in the claim's "
                                     "transaction")
        mine, want = dict(zip(JOB_FIELDS, ours.jobs[0])), dict(zip(JOB_FIELDS, theirs.jobs[0]))
        if mine["queue"] != want["queue"]:
            return diff.Finding(QUEUE, got=f"{where}its job on queue {mine['queue']!r}",
                                expected=f"{where}on queue {want['queue']!r}, the schedule's",
                                note="queue.enqueue(..., queue=schedule.queue)")
        if mine != want:
            field = next(name for name in JOB_FIELDS if mine[name] != want[name])
            return diff.Finding(ITS_JOB, got=f"{where}its job's {field}: {_shown(field, mine[field])}",
                                expected=f"{where}{field} {_shown(field, want[field])}",
                                note="queue.enqueue(conn, schedule.job_type, scheduler.job_payload(schedule, slot), "
                                     "queue=schedule.queue): the slot in the payload tells the job which run it is")
        stored = "NULL" if ours.job_id == "none" else "the id of another job"
        return diff.Finding(JOB_ID, got=f"{where}job_id {stored}", expected=f"{where}job_id = its job's id",
                            note="UPDATE schedule_runs SET job_id = <the id queue.enqueue returned> for this task and "
                                 "slot, in the claim's transaction")

    def _leaves_now(self, world: World) -> bool:
        """Whether the answer leaves out only the slot at exactly `now` (an experiment: one second later, it
        decides what the reference decides), rather than reading another clock."""
        return self.compare(replace(world, now_s=world.now_s + 1)) is None

    def _enqueues_again(self, world: World) -> bool:
        """Whether the answer enqueues the world's slots again after a worker ran their jobs (an experiment)."""
        again = self.run(replace(world, again=True, fault=None), self.learner)
        return bool(again.again_made)

    def _lost(self, world: World, got: View, expected: View) -> diff.Finding:
        for key in sorted(set(got.slots) | set(expected.slots), key=lambda k: (k[0], k[1])):
            ours, theirs = got.slots.get(key, Slot(None)), expected.slots.get(key, Slot(None))
            if ours == theirs:
                continue
            where = f"{key[0]} {hhmm(key[1])}: "
            if ours.outcome == "enqueued" and not ours.jobs:
                note = ("its claim committed without its job, so no later tick tries it again: claim and enqueue in "
                        "one transaction (with conn.transaction():), so that a failed enqueue takes the claim back")
            elif ours.outcome is None and theirs.outcome:
                note = ("it was never decided: a later slot of the task was, and a tick starts after the latest "
                        "decided slot. Record skipped slots first, then run the others oldest first, each claimed "
                        "and enqueued in one transaction")
            else:
                note = "after the failure and the next tick, every slot must stand as one tick alone leaves it"
            return diff.Finding(FAULT, got=where + _slot_words(ours), expected=where + _slot_words(theirs), note=note)
        return diff.Finding(FAULT, got=_summary(got), expected=_summary(expected))


_AT_NOW = ("a slot at exactly now ({now}) is due, and one second later your tick runs it: scheduler.due_slots gives "
           "the slots up to and including now (slot <= now, not <)")


def _slot_words(slot: Slot) -> str:
    if slot.outcome is None and not slot.jobs:
        return "no row, no job"
    row = "no row" if slot.outcome is None else f"recorded {slot.outcome!r}"
    if not slot.jobs:
        return f"{row}, no job"
    jobs = ", ".join(_job(job) for job in slot.jobs)
    stored = {"its job": "job_id = its job", "none": "job_id NULL", "another": "job_id = another job",
              "before": ""}[slot.job_id]
    return f"{row}, {len(slot.jobs)} job{'s' if len(slot.jobs) > 1 else ''} ({jobs})" + (
        f", {stored}" if stored and slot.outcome else "")


def _shown(field: str, value) -> str:
    """A job's field for a message; a payload as the dict it is (single quotes: no escapes in a report)."""
    return short(json.loads(value)) if field == "payload" else short(value)


def _job(job: tuple) -> str:
    fields = dict(zip(JOB_FIELDS, job))
    return f"{fields['type']} on {fields['queue']!r}"


def _summary(seen: View) -> str:
    decided = seen.decided()
    if not decided:
        return "nothing enqueued or recorded"
    shown = [f"{task} {hhmm(slot)} {slot_row.outcome or 'no row'}" for (task, slot), slot_row in list(decided.items())[:4]]
    return ", ".join(shown) + (f" and {len(decided) - 4} more" if len(decided) > 4 else "")


# -- beside another scheduler, and killed ---------------------------------------------------------------------


def races(judge: TickJudge) -> tuple[diff.Finding, str] | None:
    """Scheduler B beside the learner's tick on RACE_WORLD: ticking just before each of its statements
    (the reference's tick, then the learner's own), and holding its claim of 02:10 uncommitted."""
    world = RACE_WORLD
    alone = expected_view(world)
    arena = interleave.Arena(judge.conn, judge.box.connect, judge.reader, install, ids_of)
    now = world.now

    def yours(conn):
        return judge.learner(conn, now)

    def b_reference(conn):
        return scheduler.tick(conn, now)

    def b_yours(conn):
        done = judge.learner(conn, now)
        return interleave.Raised(done.error) if done.error else ids_of(done.value)

    def b_claims(conn):  # the reference's tick up to its claim of 02:10: the skips committed, the claim held open
        schedule = HOLDS.schedule()
        scheduler.skip_slots(conn, schedule, [HOLDS.slot(2), HOLDS.slot(3)])
        conn.execute("COMMIT; BEGIN")
        job_id = scheduler.enqueue_slot(conn, schedule, HOLDS.slot(4))
        return [job_id] if job_id is not None else []

    acts = [(interleave.Act("scheduler B ran the reference tick", b_reference), False),
            (interleave.Act("scheduler B ran your tick", b_yours), True)]
    holds = [interleave.InTransaction(f"scheduler B, running the reference tick, has recorded the skipped slots, "
                                      f"claimed {hhmm(HOLDS.slot(4))} and enqueued its job, and not yet committed "
                                      "(it commits once yours waits for it)", b_claims)]
    try:
        said = arena.count(yours, world)
        for act, b_is_yours in acts:
            for point in range(2, len(said) + 1):
                got = arena.between(yours, world, act, point)
                if got is None:
                    continue
                finding = _together(world, got, judge.before(world), alone, b_is_yours)
                if finding is not None:
                    return finding, (f"{world.told()}; just before your statement {point} "
                                     f"({got.statements[point - 1]}), after your statement {point - 1} "
                                     f"({got.statements[point - 2]}): {act.told}")
        for hold in holds:
            got = arena.under(yours, world, hold)
            finding = _together(world, got, judge.before(world), alone, False)
            if finding is not None:
                return replace(finding, check=LOSE if finding.check == RACE and got.raised else finding.check), \
                    f"{world.told()}; {hold.told}"
    finally:
        arena.close()
    return None


def _together(world: World, got: diff.Outcome, before: State, alone: View, b_is_yours: bool) -> diff.Finding | None:
    """The two schedulers' outcome, judged: neither of the learner's ticks raised (scheduler B's reference tick
    may lose a deadlock to the learner's locks: every scheduler runs the same tick), one tick's state, each
    job's id returned once."""
    seen = view(world, got.state, before)
    theirs = got.others[0] if got.others else []
    if isinstance(theirs, interleave.Raised) and not b_is_yours:
        theirs = []
    if got.raised or isinstance(theirs, interleave.Raised):
        who = f"yours raised {got.raised}" if got.raised else f"scheduler B, running your tick, {theirs}"
        return diff.Finding(LOSE, got=who, expected="the tick that loses the slot enqueues nothing and returns",
                            note="INSERT ... ON CONFLICT (task, slot) DO NOTHING RETURNING ...: no row back means another "
                                 "scheduler has the slot; a tick that raises skips every schedule after this one")
    twice = [(key, slot) for key, slot in seen.slots.items() if len(slot.jobs) > 1]
    if twice or not seen.same(alone):
        differing = twice or [(k, seen.slots.get(k, Slot(None))) for k in sorted(set(seen.slots) | set(alone.slots))
                              if seen.slots.get(k, Slot(None)) != alone.slots.get(k, Slot(None))]
        if not differing:
            return diff.Finding(RACE, got=f"a job for no due slot: {_job(seen.strays[0])}" if seen.strays else
                                "other tables changed", expected="what one tick alone leaves")
        (task, slot), got_slot = differing[0]
        note = ("both schedulers enqueued it: only the one whose INSERT ... ON CONFLICT DO NOTHING got a row back may "
                "enqueue, and the claim and the enqueue go in one transaction" if twice else
                "two schedulers together must leave what one tick alone leaves")
        return diff.Finding(RACE, got=f"{task} {hhmm(slot)}: {_slot_words(got_slot)}",
                            expected=f"{task} {hhmm(slot)}: {_slot_words(alone.slots.get((task, slot), Slot(None)))}",
                            note=note)
    ours = got.returned if isinstance(got.returned, list) else []
    others = theirs if isinstance(theirs, list) else []
    if sorted(ours + others) != seen.new_ids:
        return diff.Finding(RETURNS, got=f"yours returned {got.returned}, scheduler B {theirs}",
                            expected=f"the two between them return each new job once: {seen.new_ids}",
                            note="return the ids of the jobs this call enqueued, not those another scheduler did")
    return None


def kills(judge: TickJudge) -> tuple[diff.Finding, str] | None:
    """The learner's tick on KILL_WORLD loses its connection just before each of its statements in turn,
    then the next tick (the reference's) runs; the slots must stand as one tick alone leaves them."""
    world = KILL_WORLD
    alone = expected_view(world)
    conn = judge.box.connect()  # the statements it runs, counted on a connection of its own
    try:
        diff.clear(judge.conn, judge.reader)
        judge.conn.execute(install(world))
        with interleave.statements(conn, lambda n, text: None) as said:
            judge.learner(conn, world.now)
        said = list(said)
    finally:
        conn.close()
    for point in range(1, len(said) + 1):
        diff.clear(judge.conn, judge.reader)
        judge.conn.execute(install(world))
        before = judge.reader.read(judge.conn)
        victim = judge.box.connect()
        try:
            with interleave.statements(victim, _killer(judge.conn, victim, point)):
                judge.learner(victim, world.now)
        finally:
            victim.close()
        reference_tick(judge.conn, world.now)
        _idle(judge.conn)
        seen = view(world, judge.reader.read(judge.conn), before)
        if not seen.same(alone):
            key = next(k for k in sorted(set(seen.slots) | set(alone.slots), key=lambda k: (k[0], k[1]))
                       if seen.slots.get(k, Slot(None)) != alone.slots.get(k, Slot(None)))
            ours, theirs = seen.slots.get(key, Slot(None)), alone.slots.get(key, Slot(None))
            if ours.outcome == "enqueued" and ours.jobs and ours.job_id == "none":
                note = ("the job was enqueued and committed, but its id was to be stored after that commit: store the "
                        "job's id in its row inside the transaction that claimed the slot and enqueued the job")
            elif ours.outcome == "enqueued" and not ours.jobs:
                note = "the claim committed before its job: claim and enqueue in one transaction"
            else:
                note = "a tick may die between any two statements; what it committed must leave nothing half done"
            where = f"{key[0]} {hhmm(key[1])}: "
            return (diff.Finding(KILLED, got=where + _slot_words(ours), expected=where + _slot_words(theirs), note=note),
                    f"{world.told()}; your tick killed just before its statement {point} ({said[point - 1]})"
                    + (f", after its statement {point - 1} ({said[point - 2]})" if point > 1 else "")
                    + ", then the next tick")
    return None


def _killer(watch: psycopg.Connection, victim: psycopg.Connection, point: int) -> Callable[[int, str], None]:
    """before(n, text) that ends the victim's server session just before its statement `point`, and waits until
    the session is gone (its open transaction rolled back): the statement then fails as a dead scheduler's would."""
    pid = victim.info.backend_pid

    def before(n: int, text: str) -> None:
        if n == point:
            watch.execute("SELECT pg_terminate_backend(%s)", [pid])
            _gone(watch, pid)
    return before


def _gone(watch: psycopg.Connection, pid: int) -> None:
    wait_until(lambda: not watch.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone(),
               KILL_WAIT_S, interval=0.005, what="the killed tick's session to end")


# -- the check ----------------------------------------------------------------------------------------------


def tick_check(t: Trial, tick, seed=None) -> None:
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    scheduler.install(box.conn)
    box.conn.execute(INSTRUMENTS)
    judge = TickJudge(t, box, tick)
    verdicts = diff.Verdicts(t, TICK_CHECKS)
    diff.search(verdicts, diff.in_turn(families()), judge.compare, seed=t.seed, count=SCENARIOS)
    for stage, world in ((races, RACE_WORLD), (kills, KILL_WORLD)):
        if judge.compare(world) is None:  # wrong on the table alone: the search says so, not a race
            found = stage(judge)
            if found is not None:
                verdicts.add(*found)
    if not judge.acted:  # nothing done, nothing changed that should not be: that says nothing of the answer
        verdicts.not_shown(RUNS, "not judged: your tick never decided a slot nor enqueued a job, so what it changes "
                                 "was never seen")
    ran = not verdicts.first
    if ran:
        verdicts.checks.extend(schedulers.CHECKS)
        for finding in schedulers.run(t, tick):
            verdicts.add(finding, finding.example or "")
    verdicts.report()
    t.tell(f"Tried {SCENARIOS} schedule tables, another scheduler before each of your statements, and your tick "
           "killed before each of them" + (", then three scheduler processes over a night and a two-day outage."
                                           if ran else "; three scheduler processes run it once these pass."))

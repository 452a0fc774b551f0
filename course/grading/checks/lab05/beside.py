"""05.relay beside other relays and killed: the answer with another relay acting between its statements and
holding rows while it runs (the arena of course.grading.interleave, the stream read as part of what a run
left), then killed just before each of its steps (its statements and its publishes) and run again until
nothing is left, publishing to a real stream on the course's NATS server, where JetStream's duplicate window
decides what a restart leaves.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace

import threading

import psycopg
from psycopg import sql

from course.core import sql as queries
from course.infra import broker

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks.lab05.outbox import Outbox, Row, install, nth
from course.grading.checks.lab05.relay import (HOLDS, KILLED, LIMIT, MARK, MSG_ID, NEW_TABLE, NO_WAIT, SKIPS, Judge,
                                               Seen, count, reference, rows_of, shown)

# -- another relay beside it -------------------------------------------------------------------------------------

RACE = Outbox(tuple(Row(n, created=-30.0) for n in range(1, 9)) + (Row(9, sent=-5.0, created=-40.0),), limit=3)
HELD = 3  # relay A holds the first three rows


class RelayArena(interleave.Arena):
    """The arena, with the stream's record read as part of what a run left behind."""

    def __init__(self, judge: Judge, box):
        super().__init__(box.conn, box.connect, judge.reader, install, count)
        self.stream = judge.stream

    def reset(self, scenario: Outbox) -> None:
        super().reset(scenario)
        self.stream.reset(scenario)

    def read(self):
        state = super().read()
        state["calls"] = {(n,): c for n, c in enumerate(self.stream.calls)}
        return state


def _seen(outcome: diff.Outcome) -> Seen:
    calls = [c for _, c in sorted(outcome.state["calls"].items())]
    return Seen(outcome.returned, outcome.raised, outcome.state["outbox"],
                tuple(c for c in calls if c.relay == "A"), tuple(c for c in calls if c.relay == "B"),
                outcome.waited, outcome.waited_at, outcome.others)


class CrashesWhileHolding(interleave.Hold):
    """Relay A claimed rows and died before publishing them: its transaction is rolled back when let go."""
    told = f"relay A has claimed rows 1-{HELD} and is publishing them; it then dies (its transaction rolls back)"

    def start(self, arena) -> interleave.Holding:
        holder = arena.session("holder")
        holder.conn.execute("BEGIN")
        holder.conn.execute(queries.query("outbox", "claim"), {"limit": HELD})
        return interleave.Holding(lambda: holder.conn.execute("ROLLBACK"), lambda: "relay A died")


PAUSE_S = 20.0  # a bound on a hang: how long relay A stays paused at its first publish, and is waited for


class PausedRelay(interleave.Hold):
    """Relay A runs the same code as relay B (yours beside yours, the reference beside the reference), and is
    paused at its first publish, its claim made and its transaction open, until let go."""

    def __init__(self, relay: Callable, stream, told: str):
        self.relay, self.stream, self.told = relay, stream, told

    def start(self, arena) -> interleave.Holding:
        holder = arena.session("holder")
        paused, go = threading.Event(), threading.Event()
        publish_b = self.stream.publisher("B")

        def publish(*args, **kwargs):
            if not paused.is_set():
                paused.set()
                go.wait(PAUSE_S)
            return publish_b(*args, **kwargs)

        running = interleave.Background(lambda: self.relay(holder.conn, publish))
        paused.wait(PAUSE_S)  # it has claimed its rows (or it never publishes: it goes on as it is)

        def seen():
            try:
                return running.result(PAUSE_S)
            finally:
                if holder.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    holder.conn.rollback()
        return interleave.Holding(go.set, seen)


def _wrong_alone(judge: Judge, outbox: Outbox) -> bool:
    """Whether the answer is wrong on this outbox with no one else around (the search says so, not a race),
    for another reason than its message ids (which a crash and a restart show the effect of)."""
    found = judge.compare(outbox)
    return found is not None and found.check not in (MSG_ID, NEW_TABLE)


def race(judge: Judge, box) -> tuple[diff.Finding, str] | None:
    if _wrong_alone(judge, RACE):
        return None
    arena = RelayArena(judge, box)
    stream = judge.stream
    learner, ref = judge.learner(RACE), reference(RACE)

    def as_a(answer):
        return lambda conn: answer(conn, stream.publisher("A"))

    def b_runs(answer, whose: str) -> interleave.Act:
        def act(conn):
            # First how the server sees the answer, paused before its statement: in a transaction or not.
            state = conn.execute("SELECT state FROM pg_stat_activity WHERE pid = %s",
                                 [arena.conn.info.backend_pid]).fetchone()
            done = answer(conn, stream.publisher("B"))
            return (done.error or "returned", state[0] if state else None)
        return interleave.Act(f"relay B ran {whose} relay_batch(conn, publish, {RACE.limit})", act)

    claims = lambda conn: conn.execute(queries.query("outbox", "claim"), {"limit": HELD}).fetchall()  # noqa: E731
    holds = [interleave.InTransaction(f"relay A has claimed rows 1-{HELD} (FOR UPDATE SKIP LOCKED) and is "
                                      "publishing them, its transaction open", claims), CrashesWhileHolding()]
    try:
        said = arena.count(as_a(learner), RACE)
        for act, b_is_reference in ((b_runs(ref, "the reference"), True), (b_runs(judge.learner(RACE), "your"), False)):
            for point in range(2, len(said) + 1):
                got = arena.between(as_a(learner), RACE, act, point)
                if got is None:
                    continue
                finding = _between(arena, as_a(learner), RACE, _seen(got), b_is_reference)
                if finding is not None:
                    return finding, (f"{RACE.told()}; just before your statement {point} ({got.statements[point - 1]}),"
                                     f" after your statement {point - 1} ({got.statements[point - 2]}): {act.told}")
        for hold in holds:
            ours = _seen(arena.under(as_a(learner), RACE, hold))
            theirs = _seen(arena.under(as_a(ref), RACE, hold))
            finding = _beside(judge, arena, as_a(learner), RACE, ours, theirs)
            if finding is not None:
                return finding, f"{RACE.told()}; {hold.told}; meanwhile yours runs as relay B"
        # two copies of the same code: relay A (yours, paused at its first publish) and relay B (yours again).
        # The reference runs as B beside the same A: what A holds is A's to decide (one row at a time is
        # allowed), and B must pass over exactly that, without waiting (round f5: c08 failed beside the
        # reference's A, which holds a whole batch)
        told = (f"relay A runs your relay_batch(conn, publish, {RACE.limit}) and is paused at its first publish, its "
                "transaction open")
        ours = _seen(arena.under(as_a(learner), RACE, PausedRelay(learner, stream, told)))
        theirs = _seen(arena.under(as_a(ref), RACE, PausedRelay(learner, stream, told)))
        finding = _beside(judge, arena, as_a(learner), RACE, ours, theirs, a_is_yours=True)
        if finding is not None:
            return finding, f"{RACE.told()}; {told}; meanwhile yours runs as relay B"
    finally:
        arena.close()
        diff.clear(box.conn, judge.reader)  # the arena's rows are committed ones
    return None


def _between(arena: RelayArena, learner: Callable, outbox: Outbox, ours: Seen, b_is_reference: bool
             ) -> diff.Finding | None:
    """Relay B ran between the answer's statements: no row may go out from both, and B finds free every row
    the answer did not take. Why, from the server: was the answer's transaction still open when B ran, and
    which row locks does its claim pass over?"""
    mine, theirs = rows_of(outbox, ours.calls), rows_of(outbox, ours.others)
    both = sorted(set(mine) & set(theirs) - {None})
    if not both:
        free = [r.id for r in outbox.unsent if r.id not in mine]
        if b_is_reference and len(theirs) < min(outbox.limit, len(free)):
            found = f"only {shown(theirs)}" if theirs else "no row"
            return diff.Finding(LIMIT, got=f"relay B found {found} free while yours published {shown(mine)}",
                                expected=f"relay B takes {shown(free[:outbox.limit])}",
                                note="your claim locked more rows than it published: a second relay finds them taken "
                                     "and sits idle. LIMIT %(limit)s in the statement that locks")
        return None
    got, expected = f"{shown(both)} published by yours and by relay B", "relay B publishes only rows yours did not claim"
    state = ours.seen_by_b[0][1] if ours.seen_by_b else None
    probe = None if state == "idle" else _probe(arena, learner, outbox)
    if state == "idle" or probe["FOR UPDATE"] == "passes over" and probe["FOR SHARE"] == "passes over":
        return diff.Finding(HOLDS, got=got, expected=expected, note=(
            "your claim locks its rows, but when relay B ran they were free: the transaction that claimed them had "
            "ended (and its row locks with it) before your next statement. Claim, publish and mark sent in one "
            "transaction (with conn.transaction(): around all three), so the rows stay locked until they are marked"))
    return diff.Finding(SKIPS, got=got, expected=expected, note=_lock_note(probe))


def _probe(arena: RelayArena, learner: Callable, outbox: Outbox) -> dict[str, str]:
    """Which row locks the answer's claim passes over, by behaviour: another session holds each lock on row 1."""
    row = sql.SQL("SELECT id FROM outbox WHERE id = 1")
    return interleave.lock_probe(arena, learner, outbox, row, lambda got: 1 in rows_of(outbox, _seen(got).calls))


def _lock_note(probe: dict[str, str]) -> str:
    """Why, from which row locks held by another session the answer's claim passes over (weakest lock first)."""
    if probe["FOR UPDATE"] == "passes over" and probe["FOR SHARE"] != "passes over":
        return ("your claim locks its rows, with a lock two relays can hold at once (FOR SHARE or FOR KEY SHARE): "
                "a second relay running your code takes the same rows. Claim them FOR UPDATE SKIP LOCKED")
    if probe["FOR UPDATE"] != "passes over":
        return ("your claim does not lock the rows it reads: while you publish them, another relay reads them as "
                "unsent and publishes them too. Claim them FOR UPDATE SKIP LOCKED, inside the transaction that "
                "marks them")
    return "claim the rows FOR UPDATE SKIP LOCKED, inside the transaction that marks them"


def _beside(judge: Judge, arena: RelayArena, learner: Callable, outbox: Outbox, ours: Seen,
            theirs: Seen, a_is_yours: bool = False) -> diff.Finding | None:
    """The answer ran as relay B while relay A held rows: rows 1-3 (the reference's claim), or, when A is a copy
    of the answer (`a_is_yours`), whatever A claimed before its first publish: B takes other rows. A copy's
    claim is known by its effect: a row both relays published."""
    mine = rows_of(outbox, ours.calls)
    if a_is_yours:
        held = sorted({i for i in mine if i is not None} & {i for i in rows_of(outbox, ours.others) if i is not None})
        passes_over = "the reference, as relay B beside the same relay A, publishes"
    else:
        held = sorted({i for i in mine if i is not None and i <= HELD})
        passes_over = f"the reference passes over rows 1-{HELD} and publishes"
    if held and not ours.waited:
        return diff.Finding(SKIPS, got=f"yours published {shown(held)}, which relay A " +
                            ("published too" if a_is_yours else "holds"),
                            expected=f"{passes_over} {shown(rows_of(outbox, theirs.calls))}",
                            note=_lock_note(_probe(arena, learner, outbox)))
    found = judge.judge(outbox, ours, theirs)
    number, text = ours.waited_at or (None, "")
    wait = (f"your claim passed over relay A's rows, but your statement {number} ({text}) then waited for them: "
            "it changes rows your claim never took") if number and number > 1 else None
    if found is not None and found.check == MARK and wait:
        return replace(found, note=f"{wait}, and once relay A let them go it marked them sent, unpublished. "
                                   "Mark only the ids you published (WHERE id = ANY(%s))")
    if ours.waited and not theirs.waited:
        return diff.Finding(NO_WAIT, got="yours waited for relay A's row locks",
                            expected="the reference passes over relay A's rows at once",
                            note=(wait + ". Mark only the ids you published (WHERE id = ANY(%s))") if wait else
                            "FOR UPDATE SKIP LOCKED passes over rows another relay has locked, instead of waiting")
    if ours.raised and not theirs.raised:
        return diff.Finding(NO_WAIT, got=f"yours raised {ours.raised}", expected="no error",
                            note="a second relay passes over the rows the first holds, without waiting or failing")
    return found


# -- killed between two steps, then run again: on the real JetStream server ----------------------------------------

KILL = Outbox(tuple(Row(n, created=-30.0) for n in range(1, 6)) + (Row(6, sent=-5.0, created=-40.0),), limit=4)
DRAIN_ROUNDS = 8


class RealStream:
    """Publishes to a stream of its own on the course's NATS server (deleted by close())."""

    def __init__(self):
        self.name = f"CHECK05_{secrets.token_hex(4).upper()}"
        self.subject = f"{self.name.lower()}.placed"
        broker.ensure_stream(self.name, [f"{self.name.lower()}.>"])
        self.step: Callable[[str], None] | None = None
        self.published = 0

    def publish(self, subject, payload=b"", msg_id=None, **options):
        if self.step is not None:
            self.published += 1
            self.step(f"its {nth(self.published)} publish")
        return broker.publish(subject, payload, msg_id=msg_id, stream=self.name)

    def copies(self) -> dict[int, int]:
        """order id -> messages stored for it"""
        found: dict[int, int] = {}
        for message in broker.messages(self.name, limit=10_000):
            order = message.data.get("order_id") if isinstance(message.data, dict) else None
            found[order] = found.get(order, 0) + 1
        return found

    def close(self) -> None:
        broker.delete_stream(self.name)


def killed(judge: Judge, box) -> tuple[diff.Finding, str] | None:
    """Kill the answer before each of its steps (its statements and publishes) after the first, then run
    it again until nothing is left; every row must then be in the stream exactly once, and sent."""
    if _wrong_alone(judge, KILL):
        return None
    watch = box.connect()
    try:
        steps, copies, unsent, _ = _kill_once(judge, box, watch, 0)
        if unsent or any(copies.get(9811 + r.id, 0) != 1 for r in KILL.unsent):
            return None  # wrong without a crash: the search says why
        for point in range(2, len(steps) + 1):
            said, copies, unsent, drained = _kill_once(judge, box, watch, point)
            wrong = [r.id for r in KILL.unsent if copies.get(9811 + r.id, 0) != 1 or r.id in unsent]
            if wrong:
                row = wrong[0]
                n = copies.get(9811 + row, 0)
                example = (f"{KILL.told()}; yours killed just before {_step(said, point)}, after "
                           f"{_step(said, point - 1)}; then relay_batch run again until it returns 0 ({drained})")
                if n == 0 and row not in unsent:
                    note = (f"Lost: row {row} was marked sent before it was published, and the crash came in between."
                            " Publish first, then mark, in one transaction")
                elif n == 0:
                    note = f"row {row} is still unsent after the restart: the relay run again must publish it"
                else:
                    note = (f"row {row} went out, the crash came before its mark committed, so the restart sent it "
                            "again: JetStream drops such a copy only when it carries the same Nats-Msg-Id "
                            "(msg_id=str(event_id))")
                return diff.Finding(KILLED, got=f"row {row}: {n} message(s) in the stream" +
                                    (", unsent" if row in unsent else ""),
                                    expected=f"row {row}: 1 message, sent", note=note), example
    finally:
        watch.close()
    return None


def _step(said: list[str], n: int) -> str:
    text = said[n - 1]
    return text if text.startswith("its ") else f"its statement {sum(not x.startswith('its ') for x in said[:n])} ({text})"


def _kill_once(judge: Judge, box, watch, point: int) -> tuple[list[str], dict, list[int], str]:
    """One run killed just before step `point` (0: not killed), then the drain; what it left."""
    clear = "DELETE FROM outbox"
    watch.execute(clear)
    stream = RealStream()
    try:
        watch.execute(install(replace(KILL, rows=tuple(replace(r, subject=stream.subject) for r in KILL.rows))))
        conn = box.connect()
        kill = interleave.KillPoint(watch, conn, point)
        stream.step = kill.step
        try:
            with kill.watching():
                judge.t.attempt(judge.answer, conn, stream.publish, KILL.limit)
        except interleave.Killed:
            pass
        finally:
            stream.step = None
            conn.close()
        drained = _drain(judge, box, stream)
        unsent = [row for (row,) in watch.execute("SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY id")]
        return kill.steps, stream.copies(), unsent, drained
    finally:
        stream.close()
        watch.execute(clear)


def _drain(judge: Judge, box, stream: RealStream) -> str:
    with box.connect() as conn:
        for rounds in range(1, DRAIN_ROUNDS + 1):
            done = judge.t.attempt(judge.answer, conn, stream.publish, KILL.limit)
            if done.error:
                return f"its run {rounds} raised {done.error}"
            if not done.value:
                return f"{rounds} run(s)"
    return f"{DRAIN_ROUNDS} runs, still returning rows"



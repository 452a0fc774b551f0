"""05.relay: the learner's relay_batch and the reference relay run on the same outbox, drawn at random
from everything the statement allows (rows sent and unsent, ids with gaps and stored out of order, odd
payloads and subjects, limits from 1 to more than there are rows, a broker that does not answer one
publish, a stream that already holds an earlier outbox's message ids); then beside another relay,
between its statements and while the other holds its rows; then killed between any two of its steps
and run again, on the real JetStream server.

`publish` is the check's: every call is written down (subject, the payload as a consumer decodes it,
the Nats-Msg-Id) with what the stream did with it. In the first two stages the stream is the check's own
record keeping JetStream's rule (a message whose Nats-Msg-Id the stream holds is acknowledged and not
stored); where a crash and a restart make the rule matter, publishes go to a real stream.

Free, and not compared: what the relay does after a publish fails (raise, or stop and mark what went out,
or send that row again), the batch's own bookkeeping, the exact moment in sent_at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import psycopg

from course.core import outbox as course_outbox
from course.core import sql as queries

from course.grading import differential as diff
from course.grading.checks import exercise_check
from course.grading.checks.lab05.outbox import Call, Outbox, Stream, families, install
from course.grading.snapshot import At, Reader, in_words, lag_of
from course.grading.trial import Attempt, Trial, short

DEFAULT_SEED = 5
SCENARIOS = 54  # six of each family; a few ms each
SLACK_S = 1.0  # sent_at written a moment apart by the two runs (committed runs, threads)


# -- one run, and what it made observable -------------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    returned: Any
    raised: str | None
    rows: dict  # outbox rows by id: {"sent_at": At|None, ...}
    calls: tuple[Call, ...]  # the relay's own publishes
    others: tuple[Call, ...] = ()  # another relay's, when one ran beside it
    waited: bool = False
    waited_at: tuple[int, str] | None = None
    seen_by_b: tuple = ()
    lag_s: float = 0.0  # its rows were read this long after the scenario was written (an answer that committed)


@dataclass(frozen=True)
class Odd:
    shown: str

    def __str__(self) -> str:
        return self.shown


def count(value: Any) -> int | Odd:
    """The contract: how many rows it published, an int."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return Odd(short(value))


def reference(outbox: Outbox) -> Callable[[psycopg.Connection, Callable], Attempt]:
    """The solution's relay_batch (the course's claim and mark_sent statements)."""
    def run(conn, publish):
        try:
            with conn.transaction():
                rows = conn.execute(queries.query("outbox", "claim"), {"limit": outbox.limit}).fetchall()
                for _, event_id, subject, payload in rows:
                    publish(subject, payload, msg_id=str(event_id))
                conn.execute(queries.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
            return Attempt(value=len(rows))
        except Exception as error:  # noqa: BLE001 (the injected broker failure)
            return Attempt(error=f"{type(error).__name__}: {error}", error_type=type(error).__name__)
    return run


# -- the checks, by rule (labs.toml names each) ----------------------------------------------------------------

EMPTY = "an empty outbox: returns 0 and publishes nothing"
COUNT = "returns how many rows it published"
PUBLISHES = "publishes every row once, oldest first"
UNSENT_ONLY = "publishes only unsent rows: a second call finds nothing left to send"
LIMIT = "takes up to `limit` rows per call: as many as wait, never more"
MSG_ID = "sets Nats-Msg-Id to each row's event_id"
NEW_TABLE = "a new outbox table whose ids start again at 1: its rows are not mistaken for old ones"
MARK = "marks sent the rows it published, and only those"
FAILED = "when a publish fails, rows it did not publish stay unsent"
NO_WAIT = "a second relay does not wait for rows the first one holds (SKIP LOCKED)"
SKIPS = "no row is published by two relays: each claims its rows FOR UPDATE SKIP LOCKED"
HOLDS = "its rows stay claimed until they are marked sent: another relay between its statements publishes none"
KILLED = "killed between any two of its steps, then run again: each row is in the stream once, none lost"

CHECKS = (EMPTY, COUNT, PUBLISHES, UNSENT_ONLY, LIMIT, MSG_ID, NEW_TABLE, MARK, FAILED, NO_WAIT, SKIPS, HOLDS,
          KILLED)


def rows_of(outbox: Outbox, calls) -> list[int | None]:
    """Which row each publish was for: by its Nats-Msg-Id (the event id, or the row id), else by its subject
    and payload (the first row with them, in id order, not already taken)."""
    taken: list[int | None] = []
    by_event = {r.event_id: r.id for r in outbox.rows}
    for call in calls:
        found = by_event.get(call.msg_id)
        if found is None and call.msg_id is not None and call.msg_id.isdigit() and outbox.row(int(call.msg_id)):
            found = int(call.msg_id)
        if found is None:
            alike = [r.id for r in sorted(outbox.rows, key=lambda r: r.id)
                     if r.subject == call.subject and r.body == call.payload]
            found = next((i for i in alike if i not in taken), alike[0] if alike else None)
        taken.append(found)
    return taken


def shown(ids) -> str:
    ids = list(ids)
    if not ids:
        return "nothing"
    return ("row " if len(ids) == 1 else "rows ") + ", ".join("?" if i is None else str(i) for i in ids)


def _count_of(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _sent(rows: dict, row_id: int) -> Any:
    return rows.get((row_id,), {}).get("sent_at")


class Judge:
    def __init__(self, t: Trial, conn: psycopg.Connection, reader: Reader, answer: Callable):
        self.t, self.conn, self.reader, self.answer = t, conn, reader, answer
        self.stream = Stream()

    def learner(self, outbox: Outbox) -> Callable[[psycopg.Connection, Callable], Attempt]:
        return lambda conn, publish: self.t.attempt(self.answer, conn, publish, outbox.limit)

    def run(self, outbox: Outbox, answer) -> Seen:
        def act(conn):
            self.stream.reset(outbox)
            return answer(conn, self.stream.publisher("A"))
        done, state = diff.as_the_caller_runs_it(self.conn, self.reader, install(outbox), act)
        return Seen(None if done.error else count(done.value), done.error, state["outbox"],
                    tuple(self.stream.of("A")), lag_s=lag_of(state))

    def compare(self, outbox: Outbox) -> diff.Finding | None:
        ours = self.run(outbox, self.learner(outbox))
        whole = self.run(replace(outbox, fails_at=None), reference(outbox))
        if any(call.outcome == "no answer" for call in ours.calls):  # it met the broker's failure
            return self.judge_failure(outbox, ours, whole)
        return self.judge(outbox, ours, whole)

    # -- judging one run against the reference's ---------------------------------------------------------------

    def judge(self, outbox: Outbox, ours: Seen, theirs: Seen, *, slack_s: float = SLACK_S) -> diff.Finding | None:
        raised = f"yours raised {ours.raised}" if ours.raised else None
        mine, wanted = rows_of(outbox, ours.calls), rows_of(outbox, theirs.calls)
        if not outbox.unsent and (ours.calls or (ours.returned != 0 and not raised)):
            return diff.Finding(EMPTY, got=f"published {shown(mine)}, returned {ours.returned!s}" if not raised
                                else raised, expected="published nothing, returned 0",
                                note="no unsent row: nothing to publish" if not raised else None)
        found = self._publishes(outbox, ours, mine, wanted, raised)
        if found is None:  # times read after a run that committed on its own lag by as long as it ran
            found = self._marks(outbox, ours, theirs, mine, raised, slack_s + max(ours.lag_s, theirs.lag_s))
        if found is None and raised:
            found = diff.Finding(PUBLISHES, got=raised, expected=f"published {shown(wanted)} and returned "
                                 f"{theirs.returned}", note="the broker answered every publish")
        if found is None and ours.returned != theirs.returned:
            found = diff.Finding(COUNT, got=f"returned {ours.returned}", expected=f"{theirs.returned}",
                                 note=f"it published {shown(mine)}: return how many (an int)")
        return found

    def _publishes(self, outbox: Outbox, ours: Seen, mine: list, wanted: list, raised) -> diff.Finding | None:
        got, expected = f"yours published {shown(mine)}", f"the reference publishes {shown(wanted)}"
        strange = next((c for c, i in zip(ours.calls, mine) if i is None), None)
        if strange is not None:
            return diff.Finding(PUBLISHES, got=f"a message ({short(strange.subject)}, {short(strange.payload)}) "
                                "that is no row's", expected=expected,
                                note="publish each row's own subject and payload, as the claim read them")
        copies = [(c, i) for c, i in zip(ours.calls, mine) if c.outcome == "copy"]
        if copies and outbox.held:
            call, row = copies[0]
            return diff.Finding(NEW_TABLE, got=f"JetStream dropped row {row}'s message as a copy: its Nats-Msg-Id "
                                f"{call.msg_id!r} is an earlier outbox's", expected="every row's message stored",
                                note="a row id is unique in one table, for now: the outbox made again numbers its "
                                     "rows from 1. The row's event_id (a uuid) never repeats: msg_id=str(event_id)")
        if mine == wanted:
            return self._messages(outbox, ours, mine)
        old = [i for i in mine if i is not None and outbox.row(i).sent is not None]
        if old:
            return diff.Finding(UNSENT_ONLY, got=got, expected=expected, note=(
                f"row {old[0]} was sent {in_words(outbox.row(old[0]).sent)}: choose rows WHERE sent_at IS NULL"))
        if len(set(mine)) < len(mine):
            twice = next(i for i in mine if mine.count(i) > 1)
            return diff.Finding(PUBLISHES, got=got, expected=expected, note=f"row {twice} was published twice")
        if len(mine) > outbox.limit:
            return diff.Finding(LIMIT, got=got, expected=expected, note=f"limit = {outbox.limit}: at most "
                                f"{_count_of(outbox.limit, 'row')}, LIMIT %(limit)s with the limit you are given")
        if sorted(mine, key=str) == sorted(wanted, key=str):
            return diff.Finding(PUBLISHES, got=got, expected=expected, note=raised or (
                "the same rows, in another order: publish in id order (ORDER BY id), oldest first"))
        if not mine:
            return diff.Finding(PUBLISHES, got=got, expected=expected, note=raised or (
                "every unsent row goes out, however old or new: publish(subject, payload, msg_id=...) for each row claimed"))
        if len(mine) < len(wanted) and set(mine) <= set(wanted):
            return diff.Finding(LIMIT, got=got, expected=expected, note=raised or (
                f"{_count_of(len(outbox.unsent), 'unsent row')} and limit = {outbox.limit}: take "
                f"{min(len(outbox.unsent), outbox.limit)} of them, as many as the limit you are given allows"))
        return diff.Finding(PUBLISHES, got=got, expected=expected, note=raised or (
            "the oldest unsent rows come first: the smallest ids (ORDER BY id)"))

    def _messages(self, outbox: Outbox, ours: Seen, mine: list) -> diff.Finding | None:
        for call, row_id in zip(ours.calls, mine):
            row = outbox.row(row_id) if row_id is not None else None
            if row is None:
                continue
            if call.msg_id != row.event_id:
                note = "publish(subject, payload, msg_id=str(event_id))"
                if call.msg_id is None:
                    note = ("without a message id JetStream cannot tell a copy from a new message: "
                            "publish(subject, payload, msg_id=str(event_id))")
                elif call.msg_id == str(row.id):
                    note = ("the row id repeats once the outbox is made again (ids start at 1), and JetStream "
                            "would drop the new row as a copy of the old one: use the event_id, a uuid")
                return diff.Finding(MSG_ID, got=f"row {row.id}: Nats-Msg-Id {call.msg_id!r}",
                                    expected=f"row {row.id}: Nats-Msg-Id {row.event_id!r} (its event_id)", note=note)
            if (call.subject, call.payload) != (row.subject, row.body):
                return diff.Finding(PUBLISHES, got=f"row {row.id} published as ({short(call.subject)}, "
                                    f"{short(call.payload)})", expected=f"({short(row.subject)}, {short(row.body)})",
                                    note="each row's own subject and payload, as stored")
        return None

    def _marks(self, outbox: Outbox, ours: Seen, theirs: Seen, mine: list, raised, slack_s) -> diff.Finding | None:
        stored = {i for c, i in zip(ours.calls, mine) if c.outcome in ("stored", "copy")}
        stored |= {i for c, i in zip(ours.others, rows_of(outbox, ours.others)) if c.outcome in ("stored", "copy")}
        # (and the rows a relay beside it published: a copy of yours, paused, then let go, marks them)
        for row in sorted(outbox.rows, key=lambda r: r.id):
            now, before = _sent(ours.rows, row.id), _sent(theirs.rows, row.id)
            if (row.id,) not in ours.rows:
                return diff.Finding(MARK, got=f"row {row.id} deleted", expected="every row kept",
                                    note="the relay never deletes a row: it marks it sent")
            if row.sent is None and now is not None and row.id not in stored:
                return diff.Finding(MARK, got=f"row {row.id} marked sent, never published",
                                    expected=f"row {row.id} unsent", note=raised or (
                                        "a row marked sent and not published is lost: no relay will send it. "
                                        "Mark only the ids you published (WHERE id = ANY(%s))"))
            if row.sent is None and now is None and before is not None:
                return diff.Finding(MARK, got=f"row {row.id} published and still unsent",
                                    expected=f"row {row.id} sent_at = now()", note=raised or (
                                        "unsent rows go out again with the next batch: mark the published ids "
                                        "sent, in the transaction that claimed them"))
            if row.sent is not None and not _close(now, before, slack_s):
                return diff.Finding(MARK, got=f"row {row.id}'s sent_at: {now}", expected=f"{before} (unchanged)",
                                    note=f"row {row.id} was sent {in_words(row.sent)}: leave rows you did not "
                                         "publish as they are")
            if row.sent is None and now is not None and before is not None and not _close(now, before, slack_s):
                return diff.Finding(MARK, got=f"row {row.id}'s sent_at: {now}", expected=f"{before}",
                                    note="sent_at = now(), when it was published")
            differs = [c for c in ours.rows[(row.id,)] if c != "sent_at"
                       and ours.rows[(row.id,)][c] != theirs.rows.get((row.id,), {}).get(c)
                       and not _close(ours.rows[(row.id,)][c], theirs.rows.get((row.id,), {}).get(c), slack_s)]
            if differs:
                return diff.Finding(MARK, got=f"row {row.id}'s {differs[0]} changed", expected="unchanged",
                                    note="a relay changes sent_at and nothing else")
        return None

    def judge_failure(self, outbox: Outbox, ours: Seen, whole: Seen) -> diff.Finding | None:
        """After a failed publish the rules fix less: the rows it published went out in id order, each once,
        as a prefix of the batch; every row it marked went out; a count, if it returned one, says how many."""
        raised = f"yours raised {ours.raised}" if ours.raised else None
        mine, batch = rows_of(outbox, ours.calls), rows_of(outbox, whole.calls)
        went = [i for c, i in zip(ours.calls, mine) if c.outcome == "stored"]
        failed_row = batch[outbox.fails_at - 1] if outbox.fails_at <= len(batch) else None
        if went != batch[:len(went)]:
            found = self._publishes(outbox, replace(ours, calls=tuple(c for c in ours.calls if c.outcome == "stored")),
                                    went, batch[:len(went)], raised)
            if found is not None and found.check != PUBLISHES:
                return found
            return diff.Finding(PUBLISHES, got=f"yours published {shown(went)}", expected=shown(batch[:len(went)])
                                + " (in id order, each once)", note=(
                                    f"after the broker failed on row {failed_row}, yours went on past it: row "
                                    f"{failed_row} then goes out after later rows. Stop at a failed publish "
                                    "(raise), or send that row again") if failed_row in batch else raised)
        found = self._messages(outbox, ours, mine)
        if found is not None:
            return found
        for row in outbox.unsent:
            if _sent(ours.rows, row.id) is not None and row.id not in went:
                return diff.Finding(FAILED, got=f"row {row.id} marked sent", expected=f"row {row.id} unsent",
                                    note=("the broker never acknowledged it: marked sent, it is lost. Let the "
                                          "failure end the batch (the transaction rolls back) or mark only the rows "
                                          "that went out") if row.id == failed_row else
                                    f"row {row.id} was not published in this call")
        if ours.raised is None and ours.returned != len(went):
            return diff.Finding(COUNT, got=f"returned {ours.returned}", expected=f"{len(went)}",
                                note=f"it published {shown(went)} before the broker failed")
        return None


def _close(a, b, slack_s: float) -> bool:
    if isinstance(a, At) and isinstance(b, At):
        return abs(a.seconds - b.seconds) <= slack_s
    return a == b


# -- the check -----------------------------------------------------------------------------------------------------


@exercise_check("05.relay")
def relay_check(t: Trial, relay_batch, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch(queue_tables=False)
    course_outbox.install(box.conn)
    reader = Reader.of(box.conn)
    judge = Judge(t, box.conn, reader, relay_batch)
    verdicts = diff.Verdicts(t, CHECKS)
    diff.search(verdicts, diff.in_turn(families()), judge.compare, seed=t.seed, count=SCENARIOS)
    from course.grading.checks.lab05 import beside  # it builds on this module's judge

    for stage in (beside.race, beside.killed):
        found = stage(judge, box)
        if found is not None:
            verdicts.add(*found)
    verdicts.report()


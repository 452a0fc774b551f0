"""Lab 00: the warm-up exercise and the quiz.

00.first_job is judged differentially (issue 22): the learner's enqueue_welcome and the reference (the
solution's one call, queue.enqueue of the welcome job) each run on the same jobs table, drawn from every
table and every caller the statement allows — a table already holding other jobs and other users'
welcome jobs, sign-ups one after another, callers in autocommit, inside `with conn.transaction()` that
commits or rolls back, and with autocommit off ending in commit() or rollback(), user ids past 2^31 —
then with another sign-up committing its job between the answer's statements. After each call the
caller looks up the id it was given, in its own transaction; at the end what is committed is read from
another session.

Last, the database refuses the job (the caller's transaction is read-only): the
reference raises the database's error, and so must the answer (a swallowed error is a sign-up without
its welcome email, and a None where the job's id belongs).

What the statement leaves free is not compared: the job's queue, priority, run_at, max_attempts and
unique_key, and which id a job gets.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import queue
from course.grading import differential as diff
from course.grading import interleave
from course.grading.caller import CALLERS, ROLLED_BACK, run_as
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask
from course.grading.snapshot import At, Reader
from course.grading.trial import Attempt, Trial, short

DEFAULT_SEED = 1  # the scenarios `check("00.first_job")` draws unless given another seed
SCENARIOS = 15  # three of each family below
WELCOME = "send_welcome_email"
PLAIN_USER = 7  # the user id a shrunk example uses
# The sign-up's own table: the caller writes its user there first, in the same transaction as the job.
USERS_TABLE = "CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL)"

# -- a scenario, in the learner's words --------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """A job already in the table when the sign-ups start."""
    id: int
    type: str
    payload: Any
    queue: str = "default"
    unique_key: str | None = None

    def told(self) -> str:
        where = "" if self.queue == "default" else f" in queue {self.queue!r}"
        key = "" if self.unique_key is None else f" unique_key {self.unique_key!r}"
        return f"{self.id} ({self.type} {short(self.payload)}{where}{key})"


@dataclass(frozen=True)
class Signup:
    user_id: int
    caller: str = "autocommit"

    def told(self) -> str:
        return (f"user {self.user_id} signs up {CALLERS[self.caller]}{' (the sign-up failed)' * self.failed}: "
                f"INSERT INTO users, enqueue_welcome(conn, {self.user_id})")

    @property
    def failed(self) -> bool:
        return self.caller in ROLLED_BACK


@dataclass(frozen=True)
class Scene:
    jobs: tuple[Job, ...]
    signups: tuple[Signup, ...]

    def told(self) -> str:
        table = ("an empty jobs table" if not self.jobs else
                 ("job " if len(self.jobs) == 1 else "jobs ") + ", ".join(j.told() for j in self.jobs) + " in the table")
        return f"{table}; then " + "; then ".join(s.told() for s in self.signups)

    def shrinks(self) -> Iterator["Scene"]:
        n = len(self.jobs)
        size = max(1, n // 2) if n else 0
        while size >= 1:
            for start in range(0, n, size):
                yield replace(self, jobs=self.jobs[:start] + self.jobs[start + size:])
            size //= 2
        for index in range(len(self.signups)):
            if len(self.signups) > 1 and self._valid(self.signups[:index] + self.signups[index + 1:]):
                yield replace(self, signups=self.signups[:index] + self.signups[index + 1:])
        for index, signup in enumerate(self.signups):
            for simpler in (replace(signup, caller="autocommit"), replace(signup, caller="commits"),
                            replace(signup, user_id=PLAIN_USER), replace(signup, user_id=PLAIN_USER + 1)):
                rest = self.signups[:index] + (simpler,) + self.signups[index + 1:]
                if simpler != signup and _plainer(simpler, signup) and self._valid(rest):
                    yield replace(self, signups=rest)
        for index, job in enumerate(self.jobs):
            plain = replace(job, queue="default", unique_key=None)
            if plain != job:
                yield replace(self, jobs=self.jobs[:index] + (plain,) + self.jobs[index + 1:])
        ids = sorted(j.id for j in self.jobs)
        if ids != list(range(1, len(ids) + 1)):
            renumbered = {old: new for new, old in enumerate(ids, start=1)}
            yield replace(self, jobs=tuple(replace(j, id=renumbered[j.id]) for j in self.jobs))

    def _valid(self, signups: tuple[Signup, ...]) -> bool:
        return valid(self.jobs, signups)


def valid(jobs: tuple[Job, ...], signups: tuple[Signup, ...]) -> bool:
    """A user signs up once: again only after a sign-up of theirs was rolled back, and never when the table
    holds a welcome email of theirs already."""
    kept = [s.user_id for s in signups if s.caller not in ROLLED_BACK]
    welcomed = {j.payload.get("user_id") for j in jobs if j.type == WELCOME and isinstance(j.payload, dict)}
    return len(kept) == len(set(kept)) and not welcomed & {s.user_id for s in signups}


def _plainer(candidate: Signup, signup: Signup) -> bool:
    def weight(s: Signup) -> tuple:
        return ({PLAIN_USER: 0, PLAIN_USER + 1: 1}.get(s.user_id, 2), list(CALLERS).index(s.caller))
    return weight(candidate) < weight(signup)


# The ids the next jobs get start after the table's, as in any table whose rows the sequence numbered.
RENUMBER = sql.SQL("; SELECT setval(pg_get_serial_sequence('jobs', 'id'), coalesce(max(id), 0) + 1, false) FROM jobs")


def install(scene: Scene) -> sql.Composable:
    if not scene.jobs:
        return sql.SQL("SELECT") + RENUMBER
    rows = [[sql.Literal(j.id), sql.Literal(j.type), sql.Literal(Jsonb(j.payload)), sql.Literal(j.queue),
             sql.Literal(j.unique_key)] for j in scene.jobs]
    return (sql.SQL("INSERT INTO jobs (id, type, payload, queue, unique_key) OVERRIDING SYSTEM VALUE ")
            + diff.values(rows) + RENUMBER)


# -- drawing scenarios ----------------------------------------------------------------------------------

USERS = (7, 1, 42, 9812, 2**31 + 5, 10**15 + 3, 2**53 + 1)  # past an int4, past a double's exact integers
OTHER_TYPES = ("send_receipt", "send_welcome", "welcome_email", "send_invoice", "")


def _user(rng: random.Random, taken: set) -> int:
    user = rng.choice([u for u in USERS if u not in taken] or [max(taken) + 1])
    taken.add(user)
    return user


def _other_job(rng: random.Random, n: int, taken: set) -> Job:
    if rng.random() < 0.4:  # another user's welcome email, as a producer like yours would have stored it
        user = _user(rng, taken)
        return Job(n, WELCOME, {"user_id": user}, unique_key=rng.choice([None, f"welcome:{user}"]))
    payload = rng.choice([{"order_id": 9812 + n}, {}, {"user_id": rng.choice(USERS)}, {"note": "naïve ☃"}])
    return Job(n, rng.choice(OTHER_TYPES), payload, queue=rng.choice(["default", "default", "emails"]),
               unique_key=rng.choice([None, None, f"k{n}"]))


def _scene(rng: random.Random, jobs: int, callers: list[str]) -> Scene:
    taken: set = set()
    ids = rng.sample(range(1, 4 * jobs + 5), jobs)
    table = tuple(_other_job(rng, i, taken) for i in ids)
    signups = []
    for caller in callers:
        retried = [s for s in signups if s.caller in ROLLED_BACK]
        if retried and rng.random() < 0.5:  # the user whose sign-up failed tries again
            signups.append(Signup(retried[-1].user_id, caller))
        else:
            signups.append(Signup(_user(rng, taken), caller))
    scene = Scene(table, tuple(signups))
    return scene if valid(scene.jobs, scene.signups) else replace(scene, signups=scene.signups[:1])


def families() -> list[Callable[[random.Random], Scene]]:
    def alone(rng):  # the notebook's case: an empty table, one sign-up in autocommit
        return _scene(rng, 0, ["autocommit"])

    def busy(rng):  # other jobs, other users' welcome emails (some with a unique_key), one sign-up
        return _scene(rng, rng.randint(1, 6), [rng.choice(list(CALLERS))])

    def callers(rng):  # sign-ups one after another, each caller holding its transaction its own way
        return _scene(rng, rng.randint(0, 3), [rng.choice(list(CALLERS)) for _ in range(rng.randint(2, 4))])

    def failed(rng):  # a sign-up rolled back, then the same user again
        first = rng.choice(ROLLED_BACK)
        return _scene(rng, rng.randint(0, 2), [first, rng.choice(["autocommit", "commits", "commit()"])])

    def many(rng):  # a long table and several sign-ups in autocommit
        return _scene(rng, rng.randint(8, 14), ["autocommit"] * rng.randint(2, 3))

    return [alone, busy, callers, failed, many]


# -- one run: the caller around each call, and what it saw ---------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """What the caller saw of one call, inside its transaction, right after it: plain data."""
    raised: str | None = None
    returned: Any = None  # "an id", or what came back instead (an Odd)
    added: tuple = ()  # (type, payload) of each job that appeared, in id order
    named: tuple = ()  # what the returned id is: ("the new job", type, payload), ("job already there", id), ...
    caller_failed: str | None = None  # the caller's own statement (its sign-up, its COMMIT) failed
    called: bool = True  # False: the caller failed before it could call (its sign-up's INSERT)


@dataclass(frozen=True)
class Odd:
    shown: str

    def __str__(self) -> str:
        return self.shown


ANOTHER = {"user_id": 99}  # the job another sign-up commits meanwhile (the adversary's)


def _jobs(cursor: psycopg.Cursor) -> dict[int, tuple]:
    return {row[0]: (row[1], row[2]) for row in cursor.execute("SELECT id, type, payload FROM jobs").fetchall()}


def _signed_up(cursor: psycopg.Cursor, user: list) -> dict[int, tuple]:
    """The caller's sign-up (its user row) and the jobs it sees just before the call: one round trip."""
    rows = cursor.execute("WITH signed_up AS (INSERT INTO users (id, email) VALUES (%s, %s)) "
                          "SELECT id, type, payload FROM jobs", user).fetchall()
    return {row[0]: (row[1], row[2]) for row in rows}


def _seen(cursor: psycopg.Cursor, before: dict, done: Attempt) -> Seen:
    if done.error is not None:
        return Seen(raised=done.error)
    value = done.value
    try:
        after = _jobs(cursor)
    except psycopg.Error as error:  # the answer left the transaction failed
        return Seen(returned="an id", caller_failed=f"{type(error).__name__}: {str(error).strip()}")
    added = {i: row for i, row in after.items() if i not in before and row[1] != ANOTHER}
    if not isinstance(value, int) or isinstance(value, bool):
        return Seen(returned=Odd(short(value)), added=tuple(added[i] for i in sorted(added)))
    if value in added:
        named = ("the new job", *added[value])
    elif value in after and after[value][1] == ANOTHER:
        named = ("the job another sign-up stored meanwhile",)
    elif value in before:
        named = ("a job already in the table", value)
    else:
        named = ("no job",)
    return Seen(returned="an id", added=tuple(added[i] for i in sorted(added)), named=named)


def signups(conn: psycopg.Connection, scene: Scene, enqueue: Callable[[psycopg.Connection, int], Attempt]) -> tuple:
    """Each sign-up as its caller runs it, on `conn`. The caller's own statements go through a plain cursor,
    so a pause before each statement counts only the answer's."""
    seen = []
    for signup in scene.signups:
        plain = psycopg.Cursor(conn)
        got: list[Seen] = []

        def work():
            before = _signed_up(plain, [signup.user_id, f"user{signup.user_id}@example.com"])
            got.append(_seen(plain, before, enqueue(conn, signup.user_id)))

        failed = run_as(conn, signup.caller, work)
        if failed:  # the caller's commit, after what the answer did to its transaction (or its own INSERT)
            got = [replace(got[0], caller_failed=failed)] if got else [Seen(caller_failed=failed, called=False)]
        seen.append(got[0])
    return tuple(seen)


@dataclass(frozen=True)
class Run:
    seen: tuple
    jobs: dict  # what is committed: the jobs that were there (by id), as they are now
    added: tuple  # (type, payload) of the jobs committed since, sorted
    users: tuple
    dead: int


def committed(state: dict, scene: Scene) -> tuple[dict, tuple, tuple, int]:
    """(the jobs that were there, by id, without their times; the (type, payload) of the jobs added, sorted;
    the users; how many dead jobs). The times of a job already there are not compared: the table was
    written a moment earlier for one side than for the other, and no answer has reason to touch them."""
    there = {j.id for j in scene.jobs}
    jobs = {key[0]: {column: value for column, value in row.items() if not isinstance(value, At)}
            for key, row in state["jobs"].items() if key[0] in there}
    added = sorted(((row["type"], row["payload"]) for key, row in state["jobs"].items()
                    if key[0] not in there and row["payload"] != ANOTHER), key=repr)
    return jobs, tuple(added), tuple(sorted(key[0] for key in state["users"])), len(state["dead_jobs"])


# -- the judge ----------------------------------------------------------------------------------------------

RETURNS = "returns the new job's id (an int)"
ONE = "stores exactly one job, and changes no other"
TYPE = "the job's type is 'send_welcome_email'"
PAYLOAD = "the payload carries the user's id and nothing else"
SAME_ID = "the returned id is the stored job's id"
CONN = "uses the connection it is given (a rolled-back sign-up leaves no job)"
REFUSED = "raises when the job cannot be stored (never a quiet return: the sign-up would go on without it)"
CHECKS = (RETURNS, ONE, TYPE, PAYLOAD, SAME_ID, CONN, REFUSED)
TRANSACTION_NOTE = ("open no connection of your own, and leave the transaction to the caller: no commit(), no "
                    "rollback(), no autocommit change; the caller's transaction decides")


def _jobs_said(added: tuple) -> str:
    if not added:
        return "no job"
    return f"{len(added)} job(s): " + ", ".join(f"{t} {short(p)}" for t, p in added)


class Judge:
    def __init__(self, t: Trial, box, reader: Reader, answer: Callable):
        self.t, self.box, self.reader, self.answer = t, box, reader, answer
        self.watch = box.connect()

    def learner(self, scene: Scene) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: Attempt(value=signups(conn, scene, lambda c, u: self.t.attempt(self.answer, c, u)))

    @staticmethod
    def reference(scene: Scene) -> Callable[[psycopg.Connection], Attempt]:
        def enqueue(conn, user_id):
            return Attempt(value=queue.enqueue(conn, WELCOME, {"user_id": user_id}))
        return lambda conn: Attempt(value=signups(conn, scene, enqueue))

    def run(self, scene: Scene, side: Callable[[psycopg.Connection], Attempt]) -> diff.Outcome:
        self.watch.execute(sql.SQL("; ").join(
            [*(sql.SQL("DELETE FROM {}").format(sql.Identifier(table.name)) for table in self.reader.tables),
             install(scene)]))
        done = side(self.box.conn)
        return diff.Outcome(returned=done.value, state=self.reader.read(self.watch))

    def compare(self, scene: Scene) -> diff.Finding | None:
        return self.judge(scene, self.run(scene, self.learner(scene)), [self.run(scene, self.reference(scene))])

    def judge(self, scene: Scene, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
        return diff.against(ours, allowed, lambda theirs: self._against(scene, ours, theirs))

    def _against(self, scene: Scene, ours: diff.Outcome, theirs: diff.Outcome) -> diff.Finding | None:
        for signup, mine, ref in zip(scene.signups, ours.returned, theirs.returned):
            found = self._call(scene, signup, mine, ref)
            if found:
                return found
        return self._committed(scene, ours, theirs)

    def _call(self, scene: Scene, signup: Signup, mine: Seen, ref: Seen) -> diff.Finding | None:
        call = f"enqueue_welcome(conn, {signup.user_id})"
        if not mine.called and ref.called:
            return diff.Finding(CONN, got=f"user {signup.user_id}'s sign-up failed before the call: {mine.caller_failed}",
                                expected="the sign-up stored", note="an earlier sign-up of this user was rolled back, "
                                "yet its user row was committed: " + TRANSACTION_NOTE)
        if mine.raised and not ref.raised:
            if signup.caller != "autocommit" and self._calm_in_autocommit(scene):
                return diff.Finding(CONN, got=f"{call} raised an exception", expected="the job stored in the "
                                    "caller's transaction", note=f"your code raised {mine.raised}\nIt raised only "
                                    "when the caller had a transaction open: " + TRANSACTION_NOTE)
            return diff.Finding(RETURNS, got=f"{call} raised an exception", expected="the new job's id",
                                note=f"your code raised {mine.raised}")
        if isinstance(mine.returned, Odd):
            unstored = str(mine.returned) == "None" and not mine.added
            return diff.Finding(RETURNS, got=f"{call} returned {mine.returned}", expected="the new job's id, an int "
                                "(queue.enqueue returns it)", note=(
                                    "and it stored no job: queue.enqueue stores nothing and returns None when its "
                                    "unique_key is taken by a job not yet finished (a key that is the same for every "
                                    "user lets only the first welcome email in)" if unstored else None))
        if len(mine.added) != len(ref.added):
            return diff.Finding(ONE, got=f"{call} stored {_jobs_said(mine.added)}",
                                expected=f"{_jobs_said(ref.added)}", note="one sign-up, one welcome email")
        for (mine_type, mine_payload), (ref_type, ref_payload) in zip(mine.added, ref.added):
            if mine_type != ref_type:
                return diff.Finding(TYPE, got=mine_type, expected=ref_type, note=f"after {call}")
            if mine_payload != ref_payload:
                return diff.Finding(PAYLOAD, got=mine_payload, expected=ref_payload,
                                    note=f"after {call}: ids, not data; the worker reads the user fresh")
        if mine.named != ref.named:
            other = mine.named[:1] == ("the job another sign-up stored meanwhile",)
            return diff.Finding(SAME_ID, got=f"{call} returned the id of {' '.join(map(str, mine.named))}",
                                expected="the id of the job it stored", note=(
                                    "another sign-up stored its job between your statements, and yours returned that "
                                    "one's id: return the id your INSERT gave back (queue.enqueue returns it)"
                                    if other else "return the id queue.enqueue gives back"))
        if mine.caller_failed and not ref.caller_failed:
            return diff.Finding(CONN, got=f"the caller's COMMIT after {call} failed: {mine.caller_failed}",
                                expected="the caller commits its sign-up and the job", note=TRANSACTION_NOTE)
        return None

    def _committed(self, scene: Scene, ours: diff.Outcome, theirs: diff.Outcome) -> diff.Finding | None:
        mine, ref = committed(ours.state, scene), committed(theirs.state, scene)
        if mine[0] != ref[0] or mine[3] != ref[3]:
            changed = sorted(set(ref[0]) ^ set(mine[0]) | {i for i in set(ref[0]) & set(mine[0])
                                                            if ref[0][i] != mine[0][i]})
            return diff.Finding(ONE, got=f"job {changed[0] if changed else '?'} (already in the table) "
                                f"{'deleted' if changed and changed[0] not in mine[0] else 'changed'}",
                                expected="the jobs already in the table left as they were",
                                note="store one job and touch no other")
        missing = [row for row in ref[1] if row not in mine[1]]
        if mine[2] == ref[2] and missing and all(row in ref[1] for row in mine[1]) and len(mine[1]) < len(ref[1]):
            return diff.Finding(ONE, got=f"committed at the end: {_jobs_said(mine[1])}",
                                expected=_jobs_said(ref[1]), note=f"the job {missing[0][0]} {short(missing[0][1])}, "
                                "stored by an earlier sign-up, is gone: store one job and touch no other")
        if mine[1] != ref[1] or mine[2] != ref[2]:
            rolled = [s for s in scene.signups if s.caller in ROLLED_BACK]
            return diff.Finding(CONN, got=f"committed at the end: users {list(mine[2])}, {_jobs_said(mine[1])}",
                                expected=f"users {list(ref[2])}, {_jobs_said(ref[1])}",
                                note=(f"user {rolled[0].user_id}'s sign-up was rolled back: its welcome job must go "
                                      "with it. " if rolled else "") + TRANSACTION_NOTE)
        return None

    def _calm_in_autocommit(self, scene: Scene) -> bool:
        """Whether the answer's raise goes away when every caller is in autocommit (an experiment)."""
        plain = replace(scene, signups=tuple(replace(s, caller="autocommit") for s in scene.signups
                                             if s.caller not in ROLLED_BACK))
        if not plain.signups:
            plain = replace(scene, signups=(replace(scene.signups[0], caller="autocommit"),))
        return not any(s.raised for s in self.run(plain, self.learner(plain)).returned)

    def close(self) -> None:
        self.watch.close()


# -- another sign-up between the answer's statements ------------------------------------------------------------

RACES = (Scene((Job(3, "send_receipt", {"order_id": 9812}),), (Signup(PLAIN_USER),)),)


def _another_signup(conn: psycopg.Connection) -> str:
    with conn.transaction():
        conn.execute("INSERT INTO users (id, email) VALUES (99, 'user99@example.com')")
        queue.enqueue(conn, WELCOME, ANOTHER)
    return "committed"


def race(judge: Judge) -> tuple[diff.Finding, interleave.Told] | None:
    act = interleave.Act("another sign-up (user 99) committed its user and its welcome job", _another_signup)
    arena = interleave.Arena(judge.box.conn, judge.box.connect, judge.reader, install, lambda value: value)
    try:
        for scene in RACES:
            if judge.compare(scene) is not None:  # wrong alone: the search says so, not a race
                continue
            found = interleave.explore(arena, scene, answer=judge.learner(scene), reference=judge.reference(scene),
                                       acts=[(act, act)], holds=[], judge=judge.judge)
            if found:
                return found
    finally:
        arena.close()
    return None


# -- a job the database refuses ------------------------------------------------------------------------------

REFUSALS = (  # how the caller's database can refuse the job, set up in the caller's transaction (rolled back)
    ("the caller's transaction is read-only (a replica, say)", "SET TRANSACTION READ ONLY"),
)  # session-local only: a DDL refusal (a constraint) would lock the table against an answer's own connection


def refused(t: Trial, box, answer: Callable) -> tuple[diff.Finding, str] | None:
    """The reference raises the database's error (queue.enqueue does); an answer that catches it and returns
    tells the caller the welcome job is stored when it is not: "store one job", "return the new job's id"."""
    for told, setup in REFUSALS:
        conn = box.conn
        try:
            with conn.transaction(force_rollback=True):
                conn.execute(setup)
                done = t.attempt(answer, conn, PLAIN_USER)
        except psycopg.Error:
            pass  # the caller's rollback after the refusal: nothing of it is judged
        if done.error is None:
            return (diff.Finding(REFUSED, got=f"returned {short(done.value)}", expected="the database's error, "
                                 "raised (the reference lets queue.enqueue's error out)",
                                 note="let the error out of your function (no try/except around enqueue, or "
                                      "re-raise): the caller must roll the sign-up back, or retry"),
                    f"{told}; enqueue_welcome(conn, {PLAIN_USER}) in the caller's transaction")
    return None


@exercise_check("00.first_job")
def first_job(t: Trial, enqueue_welcome, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    box.conn.execute(USERS_TABLE)
    reader = Reader.of(box.conn, only=("jobs", "users", "dead_jobs"))
    judge = Judge(t, box, reader, enqueue_welcome)
    verdicts = diff.Verdicts(t, CHECKS)
    try:
        diff.search(verdicts, diff.in_turn(families()), judge.compare, seed=t.seed, count=SCENARIOS)
        found = race(judge)
        if found is not None:
            verdicts.add(found[0], str(found[1]))
        if not verdicts.failed(REFUSED) and not verdicts.failed(CONN):  # its own connection: that cause first
            refusal = refused(t, box, enqueue_welcome)
            if refusal is not None:
                verdicts.add(*refusal)
    finally:
        judge.close()
    verdicts.report()


@exercise_check("00.quiz")
def quiz(t: Trial, q1, q2, q3):
    ask(t, "q1", q1, "b", "how to see the next hint", "the hint cell shows the exact call")
    ask(t, "q2", q2, "c", "what a passing check tells you", "can a handful of checks prove code correct?")
    ask(t, "q3", q3, "b", "where a welcome goes when its payload carries a copy of the address",
        "the payload was written once, when the job was stored: does anything write it again?")

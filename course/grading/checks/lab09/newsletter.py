"""09.newsletter: the learner's newsletter beside the reference's on guest lists drawn from everything the
statement allows, then with another session counting the jobs table between the answer's statements."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import psycopg
from psycopg import sql

from course.core import queue
from course.programs.newsletter import NEWSLETTER_PRIORITY

from course.grading import differential as diff
from course.grading import interleave
from course.grading.checks import exercise_check
from course.grading.snapshot import Reader, State
from course.grading.trial import Attempt, Trial, short
from course.grading.checks.lab09.jobs import DEFAULT_SEED, NEW_FROM, _install_jobs, _new_jobs, _kept, _is_id


@dataclass(frozen=True)
class Guests:
    """A scenario: other jobs waiting, and enqueue_newsletter(conn, guest_ids)."""
    ids: tuple[int, ...]
    others: int = 0

    def told(self) -> str:
        shown = list(self.ids) if len(self.ids) <= 8 else f"[{', '.join(map(str, self.ids[:4]))}, ... ({len(self.ids)} guests)]"
        others = f"{self.others} other job(s) waiting (a confirmation, a newsletter job, priorities -5 to 5); " \
            if self.others else ""
        return f"{others}enqueue_newsletter(conn, {shown})"

    def shrinks(self) -> Iterator["Guests"]:
        n = len(self.ids)
        for size in sorted({0, 1, 2, n // 2, n - 1} - {n}):
            if size < n:
                yield replace(self, ids=self.ids[:size])
        if self.others:
            yield replace(self, others=0)


def newsletter_families() -> list[Callable[[random.Random], Guests]]:
    def few(rng):  # a handful, in no order
        return Guests(tuple(rng.sample(range(100, 1000), rng.randint(1, 6))), rng.choice([0, 3, 6]))

    def none_or_one(rng):
        return Guests(tuple(rng.sample(range(1, 50), rng.choice([0, 1]))), rng.choice([0, 6]))

    def big_ids(rng):  # ids from another system: large, descending, or starting at 0
        kind = rng.choice(["large", "descending", "zero"])
        ids = {"large": [rng.randint(2**31, 2**40) for _ in range(4)], "descending": [9, 7, 5, 3, 1],
               "zero": [0, 1, 2]}[kind]
        return Guests(tuple(ids), rng.choice([0, 6]))

    def many(rng):  # more than a thousand: a batch size written into the answer shows
        start = rng.randint(1, 100)
        return Guests(tuple(range(start, start + rng.choice([60, 1001]))), 6)

    def listed_twice(rng):  # a guest on the list twice gets two jobs, as with any list: one per entry
        ids = rng.sample(range(100, 1000), rng.randint(2, 5))
        return Guests(tuple(ids + [rng.choice(ids)]), rng.choice([0, 6]))

    return [few, none_or_one, big_ids, many, listed_twice]


NEWSLETTER_BOUNDARIES = (Guests(()), Guests((7,)), Guests((9, 7, 5, 3, 1), 6), Guests((2**40, 0, 1)),
                         Guests((5, 3, 5)))


ONE_PER_GUEST = "stores one job per guest"
CONTENT = "each job is a 'send_newsletter' with the guest's id and nothing else"
ONE_QUEUE = "every job is on the one queue, 'default'"
BELOW = "a confirmation enqueued after the newsletter (at the default priority, 0) is claimed first"
OWN_ORDER = "the newsletter itself goes out in the order given"
ONE_TX = "the whole newsletter is enqueued in one transaction"
RETURNS = "returns the new jobs' ids, one per entry of guest_ids"
IDS_ORDER = "the ids returned are the stored jobs' ids, in the guests' order"
EMPTY = "no guests: returns [] and stores nothing"
NEWSLETTER_CHECKS = (ONE_PER_GUEST, CONTENT, ONE_QUEUE, BELOW, OWN_ORDER, ONE_TX, RETURNS, IDS_ORDER, EMPTY)
NEWSLETTER_SCENARIOS = 12


class NewsletterJudge:
    def __init__(self, t: Trial, box, enqueue_newsletter: Callable):
        self.t, self.box, self.answer = t, box, enqueue_newsletter
        self.reader = Reader.of(box.conn, only=("jobs",))
        self._read: dict[int, State] = {}
        self.statements: dict[int, int] = {}  # guests -> the statements the answer ran for them, in the race

    def learner(self, g: Guests) -> Callable[[psycopg.Connection], Attempt]:
        return lambda conn: self.t.attempt(self.answer, conn, list(g.ids))

    def compare(self, g: Guests) -> diff.Finding | None:
        install = _install_jobs(g.others)
        if g.others not in self._read:
            self._read[g.others] = diff.in_rollback(self.box.conn, self.reader, install, lambda conn: Attempt())[1]
        done, state = diff.as_the_caller_runs_it(self.box.conn, self.reader, install, self.learner(g))
        return judge_newsletter(g, done, state, self._read[g.others])


def reference_newsletter(conn: psycopg.Connection, guest_ids: list) -> list[int]:
    """The solution's answer: what judge_newsletter holds the learner's to (the lab's tests hold it there)."""
    return queue.enqueue_many(conn, "send_newsletter", [{"guest_id": guest} for guest in guest_ids],
                              priority=NEWSLETTER_PRIORITY)


def judge_newsletter(g: Guests, done: Attempt, state: State, before: State) -> diff.Finding | None:
    """What the learner's newsletter left, held to what the reference's leaves: one send_newsletter job per guest,
    {"guest_id": <id>}, on 'default', at one priority below 0 (which one is free), in the guests' order, the
    ids returned in that order; the jobs that were there before, as they were."""
    new = _new_jobs(state)
    if not g.ids:
        if done.error or not (isinstance(done.value, (list, tuple)) and len(done.value) == 0) or new:
            got = f"raised {done.error}" if done.error else f"returned {short(done.value)}, {len(new)} job(s) stored"
            return diff.Finding(EMPTY, got=got, expected="returned [], 0 jobs stored")
        return None
    if done.error:
        return diff.Finding(ONE_PER_GUEST, got=f"raised {done.error}", expected=f"{len(g.ids)} jobs stored")
    if len(new) != len(g.ids) or not _kept(state, before):
        return diff.Finding(ONE_PER_GUEST, got=f"{len(new)} job(s) stored" + (
            "" if _kept(state, before) else ", and jobs already there changed"), expected=f"{len(g.ids)}, one per entry of guest_ids (an id listed twice: two)")
    by_claim = [row for _, row in sorted(new.items(), key=lambda item: (-item[1]["priority"], item[1]["run_at"],
                                                                        item[0]))]
    stored = sorted((row["type"], short(row["payload"])) for row in new.values())
    wanted = sorted(("send_newsletter", short({"guest_id": guest})) for guest in g.ids)
    if stored != wanted:
        wrong = next(pair for pair in zip(stored, wanted) if pair[0] != pair[1])
        return diff.Finding(CONTENT, got=f"{wrong[0][0]} {wrong[0][1]}", expected=f"{wrong[1][0]} {wrong[1][1]}",
                            note="payload {\"guest_id\": <id>} and nothing else: the worker reads the rest fresh")
    queues = sorted({row["queue"] for row in new.values()})
    if queues != ["default"]:
        return diff.Finding(ONE_QUEUE, got=queues, expected=["default"],
                            note="this StayHub keeps one queue: a job on another one waits for a worker nobody runs")
    priorities = sorted({row["priority"] for row in new.values()})
    if max(priorities) >= 0:
        return diff.Finding(BELOW, got=f"priority {max(priorities)}", expected="a priority below 0 (NEWSLETTER_PRIORITY)",
                            note="the claim takes the highest priority first (ORDER BY priority DESC): a confirmation "
                                 "at the default 0 goes first only if every newsletter job is below 0")
    sent = [row["payload"].get("guest_id") for row in by_claim]
    if len(priorities) > 1:  # the claim order may still match the guests' today: what breaks is the priorities
        return diff.Finding(OWN_ORDER, got=f"{len(priorities)} priorities: {short(priorities)}",
                            expected="one priority for every newsletter job",
                            note="give every newsletter job the same priority and store them in the guests' order: the "
                                 "claim keeps enqueue order within one priority")
    if sent != list(g.ids):
        return diff.Finding(OWN_ORDER, got=sent if len(sent) <= 8 else f"{sent[:4]}... in another order",
                            expected=list(g.ids) if len(g.ids) <= 8 else f"{list(g.ids[:4])}... in the order given",
                            note="give every newsletter job the same priority and store them in the guests' order: the "
                                 "claim keeps enqueue order within one priority")
    if not (isinstance(done.value, (list, tuple)) and len(done.value) == len(g.ids) and all(map(_is_id, done.value))):
        return diff.Finding(RETURNS, got=short(done.value), expected=f"a list of {len(g.ids)} ids")
    in_order = [job_id for job_id, _ in sorted(new.items(), key=lambda item: (item[1]["run_at"], item[0]))]
    if list(done.value) != in_order:  # the claim order is the guests' (checked above), a guest listed twice included
        return diff.Finding(IDS_ORDER, got=short(done.value), expected=short(in_order),
                            note="the id of guest i's job at place i: what queue.enqueue_many returns")
    return None


# One transaction: another session looks at the jobs table between the answer's statements.
NEWSLETTER_RACES = (Guests((101, 102, 103, 104, 105)), Guests(tuple(range(1, 1002))))


def _counted(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT count(*) FROM jobs WHERE id > %s", [NEW_FROM]).fetchone()[0]


def newsletter_race(judge: NewsletterJudge) -> tuple[diff.Finding, str] | None:
    act = interleave.Act("another session counted the newsletter's jobs", _counted)
    arena = interleave.Arena(judge.box.conn, judge.box.connect, judge.reader, lambda g: _install_jobs(g.others),
                             lambda value: value)
    try:
        for g in NEWSLETTER_RACES:
            if judge.compare(g) is not None:
                continue
            said = arena.count(judge.learner(g), g)
            judge.statements[len(g.ids)] = len(said)
            if len(g.ids) > 10 and len(said) > 50:  # one statement per guest: the five guests above showed how it commits
                continue
            points = sorted({2, 3, len(said) // 2 + 1, len(said)} & set(range(2, len(said) + 1)))
            for point in points:
                got = arena.between(judge.learner(g), g, act, point)
                seen = got.others[0] if got is not None and got.others else 0
                if got is not None and seen not in (0, len(g.ids)):
                    return (diff.Finding(ONE_TX, got=f"another session saw {seen} of the {len(g.ids)} jobs",
                                         expected=f"0 or {len(g.ids)}: none of the newsletter, or all of it",
                                         note="each enqueue on an autocommit connection commits on its own: a crash "
                                              "halfway leaves half a newsletter. queue.enqueue_many stores the list in "
                                              "one statement (or wrap your loop in one with conn.transaction():)"),
                            f"{g.told()}; just before your statement {point} ({got.statements[point - 1]}): {act.told}")
    finally:
        arena.close()
    return None


# A batch size written into the answer (each batch committing on its own) splits only a longer list: 10,001
# guests show any up to 10,000. Counted, never read row by row (TRUNCATE, not diff.clear's DELETE); given only
# to an answer that batches (one statement per guest showed how it commits on the thousand above).
BIG = Guests(tuple(range(1, 10_002)))


def big_newsletter(judge: NewsletterJudge) -> tuple[diff.Finding, str] | None:
    statements = judge.statements.get(len(NEWSLETTER_RACES[-1].ids))
    if statements is None:  # not right alone
        return None
    # An answer with a statement per guest on the thousand may still commit them one by one past some size of
    # its own (enqueue_many up to 500, say): it is watched on that thousand, before a few of its statements.
    many = BIG if statements <= 50 else NEWSLETTER_RACES[-1]
    looks = None if many is BIG else {2, 3, statements // 2 + 1, statements}
    watch, conn = judge.box.connect(), judge.box.conn
    seen: list[tuple[int, str, int]] = []  # (statement, its text, the jobs another session counted before it)

    def before(n: int, text: str) -> None:
        if looks is None or n in looks:
            seen.append((n, text, _counted(watch)))

    try:
        watch.execute(sql.SQL("TRUNCATE jobs; ") + _install_jobs(many.others))
        with interleave.statements(conn, before):
            interleave.Background(lambda: judge.learner(many)(conn)).result(interleave.FINISH_S)
    finally:
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()
        watch.execute("TRUNCATE jobs")
        watch.close()
    n, text, count = next(((n, said, c) for n, said, c in seen if c not in (0, len(many.ids))), (0, "", 0))
    if not n:  # before every statement, another session saw none of the newsletter or all of it
        return None
    return (diff.Finding(ONE_TX, got=f"another session saw {count} of the {len(many.ids)} jobs",
                         expected=f"0 or {len(many.ids)}: none of the newsletter, or all of it",
                         note="the newsletter went in batches that each committed on their own: a crash between two "
                              "leaves part of it. One queue.enqueue_many stores the whole list in one statement (48,000 "
                              "take a second or two), or wrap the batches in one with conn.transaction():"),
            f"{many.told()}; just before your statement {n} ({text}): another session counted the newsletter's jobs")


@exercise_check("09.newsletter")
def newsletter_check(t: Trial, enqueue_newsletter, seed=None):
    t.seed = DEFAULT_SEED if seed is None else seed
    box = t.scratch()
    judge = NewsletterJudge(t, box, enqueue_newsletter)
    verdicts = diff.Verdicts(t, NEWSLETTER_CHECKS)
    diff.search(verdicts, diff.in_turn(newsletter_families()), judge.compare, seed=t.seed, count=NEWSLETTER_SCENARIOS,
                first=NEWSLETTER_BOUNDARIES)
    found = newsletter_race(judge) or big_newsletter(judge)
    if found is not None:
        verdicts.add(*found)
    verdicts.report()
    t.tell(f"Tried no guests, one, a descending list and ids in the billions, then {NEWSLETTER_SCENARIOS} guest lists drawn "
           "(unsorted, over a thousand) beside other jobs, then another session looking at the jobs table between your "
           f"statements, on {len(NEWSLETTER_RACES[-1].ids):,} guests and on {len(BIG.ids):,}.")

"""Lab 03's scenarios, shared by 03.claim and 03.claim_batch: a jobs table in the learner's words (its jobs due,
due exactly now, scheduled for later, leased, left by a crashed worker; the call and its lease and limit), how
one is told, shrunk and written, and the families it is drawn from: every dimension the rules name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from course.grading import differential as diff
from course.grading.snapshot import in_words
from course.grading.trial import short

# The lesson's table, exactly as the lab builds it (the lab shows it; keep the two the same).
JOBS_TABLE = """
CREATE TABLE jobs (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type         text        NOT NULL,
    payload      jsonb       NOT NULL,
    run_at       timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz,
    attempts     integer     NOT NULL DEFAULT 0
);
CREATE INDEX jobs_ready ON jobs (run_at);
"""

DEFAULT_SEED = 3  # the scenarios `check("03.claim")` draws unless given another seed
SCENARIOS = 56  # drawn per check, six or seven of each family (below); a few ms each


# -- a jobs table, in the learner's words ------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    id: int
    run_at: float  # seconds from now: -2 is due 2 s ago, 0 is due exactly now, 60 is in a minute
    locked_until: float | None = None  # None: never claimed; in the past: its lease ran out
    attempts: int = 0
    type: str = "send_receipt"
    payload: Any = field(default_factory=lambda: {"order_id": 9812})

    @property
    def leased(self) -> bool:
        return self.locked_until is not None and self.locked_until > 0

    @property
    def ran_out(self) -> bool:
        return self.locked_until is not None and self.locked_until <= 0

    @property
    def ready(self) -> bool:
        return self.run_at <= 0 and not self.leased

    def told(self) -> str:
        due = "due exactly now" if self.run_at == 0 else ("due " + in_words(self.run_at) if self.run_at < 0
                                                          else "scheduled " + in_words(self.run_at))
        parts = [short(self.type) if self.type != "send_receipt" else "send_receipt", due]
        if self.leased:
            parts.append(f"leased until {in_words(self.locked_until)}")
        elif self.ran_out:
            parts.append(f"its lease ran out {in_words(self.locked_until)}")
        if self.attempts:
            parts.append(f"attempts {self.attempts}")
        if not (isinstance(self.payload, dict) and list(self.payload) == ["order_id"]):
            parts.append(f"payload {short(self.payload)}")
        return f"{self.id} ({', '.join(parts)})"


@dataclass(frozen=True)
class Table:
    """A scenario: the jobs table as it stands, and the call (claim, or claim_batch with a limit)."""
    jobs: tuple[Job, ...]
    lease_s: float = 30
    limit: int | None = None  # None: claim(conn, lease_s); a number: claim_batch(conn, limit, lease_s)

    def job(self, job_id) -> Job | None:
        return next((j for j in self.jobs if j.id == job_id), None)

    @property
    def call(self) -> str:
        return (f"claim(conn, {self.lease_s:g})" if self.limit is None
                else f"claim_batch(conn, {self.limit}, {self.lease_s:g})")

    def told(self) -> str:
        if not self.jobs:
            return f"an empty jobs table; {self.call}"
        told = [j.told() for j in sorted(self.jobs, key=lambda j: j.id)]
        listed = told[0] if len(told) == 1 else ", ".join(told[:-1]) + " and " + told[-1]
        return f"{'job' if len(told) == 1 else 'jobs'} {listed}; {self.call}"

    def shrinks(self) -> Iterator["Table"]:
        """Smaller tables first (half the jobs fewer, then a quarter, ... then one), then plainer ones (a value
        simplified in every job at once, then in one job), one step at a time."""
        n = len(self.jobs)
        size = max(1, n // 2) if n else 0
        while size >= 1:
            for start in range(0, n, size):
                yield replace(self, jobs=self.jobs[:start] + self.jobs[start + size:])
            size //= 2
        if self.limit is not None and self.limit > 1:  # big steps first: a limit of 100 need not go down by ones
            for smaller in sorted({1, min(self.limit - 1, max(1, n)), self.limit // 2, self.limit - 1}):
                yield replace(self, limit=smaller)
        if self.lease_s != 30:
            yield replace(self, lease_s=30)
        simplifications = [lambda j: replace(j, payload={"order_id": 9812}), lambda j: replace(j, type="send_receipt"),
                           lambda j: replace(j, attempts=1 if j.locked_until is not None else 0),
                           lambda j: replace(j, run_at=float(round(j.run_at)) or (-1.0 if j.run_at < 0 else j.run_at)),
                           lambda j: replace(j, run_at=-1.0 if j.run_at < -1 else j.run_at),
                           lambda j: replace(j, locked_until=-1.0 if j.ran_out else 30.0 if j.leased else None),
                           lambda j: replace(j, locked_until=None)]
        for simpler in simplifications:  # in every job at once
            everywhere = tuple(c if _plainer(c := simpler(j), j) else j for j in self.jobs)
            if everywhere != self.jobs:
                yield replace(self, jobs=everywhere)
        for index, job in enumerate(self.jobs):  # in one job
            for simpler in simplifications:
                candidate = simpler(job)
                if candidate != job and _plainer(candidate, job):
                    yield replace(self, jobs=self.jobs[:index] + (candidate,) + self.jobs[index + 1:])
        ids = sorted(j.id for j in self.jobs)
        renumbered = {old: new for new, old in enumerate(ids, start=1)}
        if any(old != new for old, new in renumbered.items()):
            yield replace(self, jobs=tuple(replace(j, id=renumbered[j.id]) for j in self.jobs))

    def as_yours(self, claimed: set) -> "Table":
        """The same table with each tie (jobs with one run_at) broken the way the answer broke it: the
        jobs it claimed move a tenth of a millisecond earlier. Which of two equal jobs goes first is free."""
        at = {}
        for j in self.jobs:
            at.setdefault(j.run_at, []).append(j.id)
        return replace(self, jobs=tuple(
            replace(j, run_at=j.run_at - 0.0001) if j.id in claimed and len(at[j.run_at]) > 1 else j
            for j in self.jobs))


def _plainer(candidate: Job, job: Job) -> bool:
    """Whether a simplification really simplifies (so shrinking always ends)."""
    def weight(j: Job) -> tuple:
        return (j.payload != {"order_id": 9812}, j.type != "send_receipt", j.attempts, j.locked_until is not None,
                abs(j.locked_until or 0), j.run_at != round(j.run_at), abs(j.run_at))
    return weight(candidate) < weight(job)


def install(table: Table) -> sql.Composable:
    """The INSERT that writes the scenario (ids as given, times from now())."""
    if not table.jobs:
        return sql.SQL("SELECT")
    rows = [[sql.Literal(j.id), sql.Literal(j.type), sql.Literal(Jsonb(j.payload)), diff.from_now(j.run_at),
             diff.from_now(j.locked_until), sql.Literal(j.attempts)] for j in table.jobs]
    return sql.SQL("INSERT INTO jobs (id, type, payload, run_at, locked_until, attempts) OVERRIDING SYSTEM VALUE "
                   ) + diff.values(rows)


# -- drawing tables: every dimension the rules name, each family stressing some ---------------------------

TYPES = ("send_receipt", "send_invoice", "refund_order", "notify_courier", "", "envoyer_reçu", "x" * 300)
LEASES = (30, 45, 1, 0.5, 2.5, 7.25, 90, 3600, 86400)


def _payload(rng: random.Random, n: int) -> Any:
    return rng.choice([{"order_id": 9812 + n}] * 6 + [
        {}, [], None, 42, "a plain string", {"order_id": 9812 + n, "items": [{"sku": "D-1", "qty": 2}]},
        {"note": "naïve café ☃ 🍜", "quote": "it's \"fine\""}, {"deep": {"a": {"b": [None, True, 1.5]}}},
        {"big": "x" * 3000}])


def _due(rng: random.Random) -> float:
    return -rng.choice([0.5, 1, 2, 2.5, 3, 5, 8, 60, 61.5, 3600, 86400 * 3]) * rng.choice([1, 1, 1.5, 7])


def _job(rng: random.Random, n: int, *, run_at: float | None = None, lease: str | None = None) -> Job:
    if run_at is None:
        run_at = rng.choices([_due(rng), 0.0, rng.choice([0.5, 1, 2.5, 60, 3600, 86400])], weights=[7, 1, 2])[0]
    lease = lease or rng.choices(["none", "leased", "ran out"], weights=[6, 2, 2])[0]
    locked_until = {"none": None, "leased": rng.choice([0.5, 1, 5, 30, 3600]) * 1.0,
                    "ran out": -rng.choice([0.5, 1, 5, 600]) * 1.0}[lease]
    attempts = rng.choices([0, rng.randint(1, 5), rng.randint(1000, 50000)], weights=[6, 3, 1])[0]
    if lease != "none" and attempts == 0:
        attempts = 1  # a job someone claimed has been attempted
    kind = rng.choices(TYPES, weights=[10, 4, 2, 2, 1, 1, 1])[0]
    return Job(n, run_at, locked_until, attempts, kind, _payload(rng, n))


def _numbered(rng: random.Random, jobs: list[Job]) -> tuple[Job, ...]:
    """Ids that are not in run_at order (the smallest id is often not the oldest job)."""
    ids = rng.sample(range(1, 3 * len(jobs) + 4), len(jobs))
    return tuple(replace(j, id=i) for j, i in zip(jobs, ids))


def _count(rng: random.Random) -> int:
    return rng.choices([0, 1, 2, 3, 4, 6, 9, 13], weights=[1, 3, 4, 4, 3, 3, 2, 1])[0]


def _table(rng: random.Random, jobs: list[Job], batch: bool) -> Table:
    if rng.random() < 0.2 and len(jobs) > 1:  # ties: two jobs with one run_at
        a, b = rng.sample(range(len(jobs)), 2)
        jobs[b] = replace(jobs[b], run_at=jobs[a].run_at)
    ready = sum(1 for j in jobs if j.ready)
    limit = None
    if batch:
        limit = rng.choice([1, 1, 2, 3, max(1, ready), ready + 1, ready + 4, 100])
    return Table(_numbered(rng, jobs), rng.choice(LEASES), limit)


def families(batch: bool) -> list[Callable[[random.Random], Table]]:
    """One generator per family of tables; `search` takes them in turn, so every family is tried."""
    def mixed(rng):
        return _table(rng, [_job(rng, n) for n in range(_count(rng))], batch)

    def waiting(rng):  # several ready jobs of every type, nothing else: who is oldest?
        return _table(rng, [_job(rng, n, run_at=_due(rng), lease="none") for n in range(rng.randint(2, 6))], batch)

    def boundary(rng):  # a job due exactly now, beside jobs not ready
        others = [_job(rng, n, run_at=rng.choice([0.5, 1.0, 60.0, 3600.0]), lease=rng.choice(["none", "leased"]))
                  for n in range(rng.randint(0, 3))]
        return _table(rng, [_job(rng, 9, run_at=0.0, lease="none"), *others], batch)

    def crashed(rng):  # leases that ran out (their workers died), beside live leases and new jobs
        jobs = [_job(rng, n, run_at=_due(rng), lease="ran out") for n in range(rng.randint(1, 3))]
        jobs += [_job(rng, 10 + n, lease=rng.choice(["leased", "none"])) for n in range(rng.randint(0, 3))]
        return _table(rng, jobs, batch)

    def busy(rng):  # the oldest jobs leased: the claim must go past them
        jobs = [_job(rng, n, run_at=-100.0 - n, lease="leased") for n in range(rng.randint(1, 3))]
        jobs += [_job(rng, 10 + n, run_at=_due(rng), lease="none") for n in range(rng.randint(0, 3))]
        return _table(rng, jobs, batch)

    def later(rng):  # jobs scheduled for later (some run before: their lease ran out), beside ready ones
        jobs = [_job(rng, n, run_at=rng.choice([0.5, 1, 2.5, 60, 3600]) * 1.0, lease=rng.choice(["none", "ran out"]))
                for n in range(rng.randint(1, 3))]
        jobs += [_job(rng, 10 + n) for n in range(rng.randint(0, 3))]
        return _table(rng, jobs, batch)

    def nothing_ready(rng):  # every job just short of ready: any claim here is wrong
        def almost(n):
            if rng.random() < 0.5:  # due in a moment, maybe run before (its lease ran out)
                return _job(rng, n, run_at=rng.choice([0.5, 0.5, 1, 60]) * 1.0, lease=rng.choice(["none", "ran out"]))
            job = _job(rng, n, run_at=_due(rng), lease="leased")  # due, but leased a moment more
            return replace(job, locked_until=rng.choice([0.5, 0.5, 1.0, 30.0]))
        return _table(rng, [almost(n) for n in range(rng.randint(1, 4))], batch)

    def crowd(rng):  # more jobs than most limits
        return _table(rng, [_job(rng, n, lease=rng.choice(["none", "none", "ran out", "leased"]))
                            for n in range(rng.randint(8, 16))], batch)

    def many(rng):  # more ready jobs than a hard-coded limit of ten would take, and limits above ten
        jobs = [_job(rng, n, run_at=_due(rng), lease=rng.choice(["none"] * 5 + ["ran out", "leased"]))
                for n in range(rng.randint(12, 30))]
        table = _table(rng, jobs, batch)
        ready = sum(1 for j in table.jobs if j.ready)
        return replace(table, limit=rng.choice([11, 12, 15, ready, ready + 3, 100])) if batch else table

    return [mixed, waiting, boundary, crashed, busy, later, nothing_ready, crowd] + ([many] if batch else [])

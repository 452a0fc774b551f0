"""The exam's grade, read from a run: what went wrong, and which of the learner's pieces it points to.

    judge(run) -> Verdict        outcomes (lost, duplicated, stuck, poison), violations, the first one's timeline
    (speed.py: throughput and latency, shown beside the reference's, never graded)

Outcomes count what a user of the queue would see. Violations are what each piece did against its own
lab's rule, seen with the row locked (worker.py) or by the table's claim trigger (exam.sql), so each
names one piece:
    03.claim        took a job whose lease (or retry delay) had not run out; waited for another session's row lock;
                    returned a job that is gone from the table (a claim that deletes)
    03.claim_batch  the same (one worker claims with it), and: claimed more jobs than its limit, or other
                    jobs than it returned
    07.backoff      a retry's delay outside [0, min(300, 2^(attempt-1))]; or, over a fixed sample of draws
                    at each attempt 1-10, a draw outside it, none reaching BACKOFF_REACH of the ceiling (it does
                    not grow) or none below 1 - BACKOFF_REACH of it (no full jitter)
    04.fenced_ack   deleted a job whose lease was no longer its own (seen by the worker, and by the server: exam.sql's
                    delete_log, which no worker can write); did not delete its own; returned otherwise
    04.heartbeat    moved a lease that was not its own; did not push its own lease to lease_s from now
    07.route        dead-lettered before the last attempt, retried after it, retried a permanent error
    07.backoff      also: a retry's next attempt claimed before the retry was due, the row free (spacing.py)
    any piece       raised
"""

from __future__ import annotations

from dataclasses import dataclass, field

from course.infra import eventlog
from course.grading.exam.soak import Event, Run, claiming_piece
from course.grading.exam.spacing import Spacing, spacing
from course.grading.exam.worker import CLAIMING

CAP_S = 300.0  # lab 07's rule: random(0, min(CAP_S, 2^(attempt-1)))
BACKOFF_REACH = 0.8  # the tolerance: 200 uniform draws all miss the top (or the bottom) fifth once in 10^19


@dataclass(frozen=True)
class Violation:
    t: float  # seconds from the start of the run
    piece: str  # the exercise it points to, e.g. "04.fenced_ack"
    job: int | None
    what: str


@dataclass
class Verdict:
    run: Run
    lost: list[int] = field(default_factory=list)
    duplicated: list[int] = field(default_factory=list)
    stuck: list[int] = field(default_factory=list)
    poison_wrong: list[tuple[int, str]] = field(default_factory=list)  # (job, what happened instead)
    violations: list[Violation] = field(default_factory=list)
    spacing: Spacing = field(default_factory=Spacing)  # retries beside their next claims (spacing.py)

    @property
    def passed(self) -> bool:
        return not (self.lost or self.duplicated or self.stuck or self.poison_wrong or self.violations
                    or self.run.timed_out or self.raised)

    @property
    def raised(self) -> list[Event]:
        return [e for e in self.run.events if e.kind == "piece_raised"]

    def first(self) -> Violation | None:
        return min(self.violations, key=lambda v: v.t) if self.violations else None

    def pieces_at_fault(self) -> list[str]:
        return sorted({v.piece for v in self.violations})

    def timeline(self, job_id: int) -> str:
        return job_timeline(self.run, job_id)

    def bookings(self, job_id: int) -> int:
        """How many ledger rows the job has: its ack's, and any a piece wrote apart from it."""
        return len(self.run.ledger.get(job_id, [])) + sum(
            1 for row in self.run.apart if row["table"] == "ledger" and row["job_id"] == job_id)

    def render(self) -> str:
        return self.headline() + "\n" + self.body()

    def headline(self) -> str:
        """What the run did: it varies with the machine's speed (how many kills fell before the end)."""
        r = self.run
        poison = sum(1 for k in r.kinds.values() if k in ("poison", "permanent"))
        return (f"seed {r.seed}: {len(r.kinds)} jobs ({poison} poison) in {r.elapsed_s:.0f} s, {r.kills} worker(s) "
                f"SIGKILLed, {r.freezes} frozen past their lease, {r.cuts} connection(s) cut, PostgreSQL restarted "
                f"{r.restarts} time(s)" + (", stopped at the time limit" if r.timed_out else "")
                + (f"\n  the seed's faults: {r.plan}" if r.plan else ""))

    def body(self) -> str:
        """The grade: the outcomes, the pieces at fault, the first violation's timeline."""
        r = self.run
        poison = sum(1 for k in r.kinds.values() if k in ("poison", "permanent"))
        lines = [
            f"  lost (never booked, not dead-lettered):  {_count(self.lost)}",
            f"  duplicated (booked more than once):      {_count(self.duplicated)}",
            f"  stuck (still in the table at the end):   {_count(self.stuck)}",
            f"  poison dead-lettered at the right attempt: {poison - len(self.poison_wrong)} of {poison}"
            + (f" (first wrong: job {self.poison_wrong[0][0]}, {self.poison_wrong[0][1]})" if self.poison_wrong else ""),
            f"  retries claimed only once due:           {self.spacing.line()}",
            f"  rule broken by a piece:                  {len(self.violations)}"
            + (f" ({', '.join(self.pieces_at_fault())})" if self.violations else ""),
        ]
        for event in self.raised:
            lines.append(f"  a piece raised: {event.detail}")
        first = self.first()
        if first is not None:
            lines += ["", f"First violation, at {first.t:.2f} s: {first.what}  -> your {first.piece}"]
            if first.job is not None:
                lines.append(self.timeline(first.job))
        elif not self.passed:
            job = next(iter(self.lost or self.duplicated or self.stuck or [j for j, _ in self.poison_wrong]), None)
            if job is not None:
                lines += ["", self.timeline(job)]
        lines.append("")
        lines.append("PASSED: nothing lost, nothing duplicated, nothing stuck, poison dead-lettered where it should be"
                     if self.passed else "NOT PASSED")
        return "\n".join(lines)


def _count(jobs: list[int]) -> str:
    return "0" if not jobs else f"{len(jobs)} (first: job {jobs[0]})"


def judge(run: Run) -> Verdict:
    verdict = Verdict(run)
    _outcomes(run, verdict)
    verdict.spacing = spacing(run)
    early = [Violation(e.claimed, e.piece, e.job, e.what()) for e in verdict.spacing.early
             if e.was_free]  # a claim that took a held row is _claims' already
    verdict.violations = sorted(_claims(run) + _acks(run) + _heartbeats(run) + _routes(run) + _backoffs(run) + early,
                                key=lambda v: v.t)
    return verdict


def _outcomes(run: Run, verdict: Verdict) -> None:
    for job_id, kind in sorted(run.kinds.items()):
        booked = len(run.ledger.get(job_id, []))  # with its ack: a row written apart from it books nothing
        if verdict.bookings(job_id) > 1:
            verdict.duplicated.append(job_id)
        if job_id in run.stuck:
            verdict.stuck.append(job_id)
            if kind in ("poison", "permanent"):
                verdict.poison_wrong.append((job_id, f"still in the table after attempt {run.stuck[job_id]}"))
            continue
        if kind in ("ordinary", "slow"):
            if booked == 0:
                verdict.lost.append(job_id)  # gone from the table with no effect, or dead-lettered: its work never done
        else:
            wrong = _poison_outcome(run, job_id, kind)
            if wrong:
                verdict.poison_wrong.append((job_id, wrong))


def _poison_outcome(run: Run, job_id: int, kind: str) -> str | None:
    """None when the job died where its kind says: a permanent error at a failure the route buried at once,
    one that always fails at or past max_attempts. Not "at its first failure": a failure whose burial (or
    retry) never committed, its connection cut or its worker killed, does not count, and the job is
    claimed again at the next attempt. Each route decision is judged on its own by _routes."""
    if job_id not in run.dead:
        return "booked as if it had worked" if run.ledger.get(job_id) else "gone without being dead-lettered"
    attempts, reason = run.dead[job_id]
    if kind == "permanent":
        retried = [e.attempt for e in run.events if e.job == job_id and e.kind == "retried" and e.facts.get("applied")]
        return None if not retried else f"retried after attempt {retried[0]}, dead at attempt {attempts} ({reason})"
    return None if attempts >= run.max_attempts else (f"dead at attempt {attempts} ({reason}), expected "
                                                      f"{run.max_attempts} or later")


def _claims(run: Run) -> list[Violation]:
    found = []
    for claim in run.claims:
        if not claim["was_free"]:
            found.append(Violation(claim["t"], claim["piece"], claim["job_id"],
                                   f"job {claim['job_id']} was claimed (attempt {claim['attempt']}) while it was still "
                                   f"held until {claim['held_until']:.2f} s: another worker's lease, or a retry not yet due"))
    for event in run.events:
        if event.kind == "batch_claimed":
            f = event.facts
            found.append(Violation(event.t, "03.claim_batch", None,
                                   f"worker {event.worker}'s claim_batch(conn, {f['limit']}, lease_s) claimed {f['claimed']} "
                                   f"job(s) and returned {f['returned']}" + (": more than its limit" if f["claimed"] >
                                                                             f["limit"] else "")))
        if event.kind == "claim_vanished":
            found.append(Violation(event.t, claiming_piece(f"examworker-{run.seed}-{event.worker}"), event.job,
                                   f"the claim returned job {event.job}, and the job is no longer in the table: a "
                                   "claim leases a job, it does not take it away"))
        if event.kind == "claim_waited":
            found.append(Violation(event.t, claiming_piece(event.facts.get("worker") or ""), event.job,
                                   f"a claim ({event.facts.get('worker')}) waited for the row lock another session held "
                                   f"on job {event.job}, instead of passing over it"))
    return found


def ceiling(attempt: int) -> float:
    return min(CAP_S, 2.0 ** (attempt - 1))


def _backoffs(run: Run) -> list[Violation]:
    found = []
    for e in run.events:
        if e.kind == "retried" and not 0 <= e.facts["delay_s"] <= ceiling(e.attempt):
            found.append(Violation(e.t, "07.backoff", e.job,
                                   f"job {e.job} was retried after attempt {e.attempt} with a backoff of "
                                   f"{e.facts['delay_s']:.2f} s, outside [0, {ceiling(e.attempt):g}]"))
        if e.kind == "backoff_probe":
            for attempt, (low, high) in sorted((int(a), d) for a, d in e.facts["draws"].items()):
                top = ceiling(attempt)
                if low < 0 or high > top:
                    what = f"a draw of {low if low < 0 else high:.2f} s, outside [0, {top:g}]"
                elif high < BACKOFF_REACH * top:
                    what = (f"none reaching {BACKOFF_REACH:.0%} of its ceiling {top:g} s (the largest: {high:.2f} s): "
                            "the wait does not grow with the attempt as promised")
                elif low > (1 - BACKOFF_REACH) * top:
                    what = (f"none below {1 - BACKOFF_REACH:.0%} of its ceiling {top:g} s (the smallest: {low:.2f} s): "
                            "no full jitter, so workers that failed together retry together")
                else:
                    continue
                found.append(Violation(e.t, "07.backoff", None, f"backoff(attempt={attempt}, rng) over 200 seeded "
                                                                f"draws gave {what}"))
                break
    return found


def _acks(run: Run) -> list[Violation]:
    found = []
    for e in run.events:
        if e.kind not in ("acked", "ack_refused"):
            continue
        f = e.facts
        if not f["exists_before"]:
            continue  # the job was gone already (its new owner acked it): nothing to delete, nothing wrong
        if f["deleted"] and not f["ours"]:
            found.append(Violation(e.t, "04.fenced_ack", e.job,
                                   f"worker {e.worker} acked job {e.job} with the lease of its attempt {e.attempt}, "
                                   "no longer the job's lease, and the job was deleted under its new owner"))
        elif f["ours"] and not f["deleted"]:
            found.append(Violation(e.t, "04.fenced_ack", e.job,
                                   f"worker {e.worker} acked job {e.job} with its current lease and the job stayed"))
        elif f["returned"] != f["deleted"]:
            found.append(Violation(e.t, "04.fenced_ack", e.job,
                                   f"the ack of job {e.job} returned {f['returned']} but "
                                   + ("deleted it" if f["deleted"] else "deleted nothing")))
    return found + _stale_deletes(run, {v.job for v in found if v.what.endswith("under its new owner")})


def _stale_deletes(run: Run, seen: set[int]) -> list[Violation]:
    """What the server saw (exam.sql's delete_log), whatever the workers wrote: a job deleted by a backend
    other than the one whose claim its row's lease was, outside any claim, is an ack with a lease no longer
    its own. Said once for a job the history already showed so."""
    found = []
    for d in run.deletes:
        if d["claimed_by"] is None or d["backend"] == d["claimed_by"] or d["app"].endswith(CLAIMING) or d["job_id"] in seen:
            continue
        seen.add(d["job_id"])
        found.append(Violation(d["t"], "04.fenced_ack", d["job_id"],
                               f"job {d['job_id']} was deleted by another session than the one whose claim held its "
                               f"lease (attempt {d['attempt']}): an ack with a lease no longer its own"))
    return found


def _heartbeats(run: Run) -> list[Violation]:
    found = []
    for e in run.events:
        if e.kind != "heartbeat":
            continue
        f = e.facts
        if f["moved"] and not f["ours"]:
            found.append(Violation(e.t, "04.heartbeat", e.job,
                                   f"worker {e.worker}'s heartbeat moved the lease of job {e.job}, which another "
                                   f"worker holds now (its own was attempt {e.attempt}'s)"))
        elif f["ours"] and not f["extended"]:
            found.append(Violation(e.t, "04.heartbeat", e.job,
                                   f"worker {e.worker}'s heartbeat on job {e.job} did not push its own lease to "
                                   f"lease_s from now"))
        elif f["returned"] != (f["ours"] and f["extended"]):
            found.append(Violation(e.t, "04.heartbeat", e.job,
                                   f"the heartbeat of job {e.job} returned {f['returned']} for a lease that "
                                   + ("is ours and was extended" if f["ours"] else "is not ours")))
    return found


def _routes(run: Run) -> list[Violation]:
    found = []
    for e in run.events:
        if e.kind not in ("retried", "buried"):
            continue
        permanent = e.facts["permanent"]
        if e.kind == "buried" and not permanent and e.attempt < run.max_attempts:
            found.append(Violation(e.t, "07.route", e.job, f"job {e.job} was dead-lettered after attempt {e.attempt} "
                                                           f"of {run.max_attempts}: a failure that may pass was given up"))
        elif e.kind == "retried" and permanent:
            found.append(Violation(e.t, "07.route", e.job, f"job {e.job} failed with a PermanentError and was retried"))
        elif e.kind == "retried" and e.attempt >= run.max_attempts:
            found.append(Violation(e.t, "07.route", e.job, f"job {e.job} was retried after attempt {e.attempt}, "
                                                           f"its last (max_attempts = {run.max_attempts})"))
    for e in run.events:
        if e.kind == "piece_raised":
            found.append(Violation(e.t, e.facts["piece"], None, e.detail))
    return found


def job_timeline(run: Run, job_id: int) -> str:
    """Everything that happened to one job: the workers' history, the run's cues and the claim trigger."""
    def describe(e: Event) -> str:
        who = f"worker {e.worker}" if e.worker >= 0 else "the exam"
        what = e.kind + (f" (attempt {e.attempt})" if e.attempt else "") + (f": {e.detail}" if e.detail else "")
        facts = {k: v for k, v in e.facts.items() if k in ("ours", "deleted", "moved", "extended", "returned")}
        return f"{who:<9} {what}" + (f"  {facts}" if facts else "")

    events = [e for e in run.events if e.job == job_id]
    for row in run.apart:
        if row["job_id"] == job_id:
            events.append(Event(t=row["t"], pid=0, kind=f"{row['table']}_row_apart", worker=-1, job=job_id,
                                detail=f"a {row['table']} row committed apart from the job's delete: no ack "
                                       "or burial wrote it, so it counts for neither"))
    for claim in run.claims:
        if claim["job_id"] == job_id and not claim["was_free"]:
            events.append(Event(t=claim["t"], pid=0, kind="claim_while_held", worker=-1, job=job_id,
                                attempt=claim["attempt"], detail=f"the table saw this claim while the job was held "
                                                                 f"until {claim['held_until']:.2f} s"))
    events.sort(key=lambda e: e.t)
    return f"timeline of job {job_id} (seconds from the start of the run):\n" + eventlog.timeline(
        events, describe, since=0.0)

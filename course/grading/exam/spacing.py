"""Retries spaced as the backoff promised, judged by order, never by timing.

    spacing(run) -> Spacing      each committed retry beside the claim of the job's next attempt

When a worker's retry commits, the job is due again at `due`: the retry's `now()` plus the wait the
learner's 07.backoff drew (worker.py notes it, `retry_due`, read back from the row it wrote). The next
attempt's claim is in the claim log (exam.sql's trigger), timed on the same server clock. The rule is an
order: that claim comes at or after `due`. Later is always fine (a loaded machine claims late); earlier
means the job was run before its backoff was up, and the claim log says why:
  * the claim saw the row still held (was_free false): a claim that takes jobs not yet due; _claims in
    verdict.py already blames 03.claim for it, so it is counted here and not blamed twice;
  * the claim saw the row free: the row no longer held the wait. A heartbeat of that job after the retry
    that moved its lease is 04.heartbeat's doing; otherwise the retry's run_at was not pushed forward as
    far as the backoff promised, which is 07.backoff's rule ("the wait before the next attempt").
A retry whose next attempt was never claimed (the job was done, or the run ended) is not judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from course.grading.exam.soak import Run


@dataclass(frozen=True)
class Early:
    """A retry whose next attempt was claimed before it was due."""

    job: int
    attempt: int  # the attempt that failed and was retried
    due: float  # run seconds: when the retry made the job due again
    claimed: float  # run seconds: when the next attempt was claimed
    held_until: float | None  # what the claim saw in the row (None: nothing held it)
    was_free: bool
    piece: str  # the piece whose rule this breaks
    moved_by_heartbeat: float | None = None  # when a heartbeat moved the lease in between, if one did

    def what(self) -> str:
        text = (f"job {self.job} was retried after attempt {self.attempt}, due again at {self.due:.2f} s, and its "
                f"attempt {self.attempt + 1} was claimed at {self.claimed:.2f} s, before its backoff was up")
        if not self.was_free:
            return text + f": the row still held it until {self.held_until:.2f} s"
        seen = "nothing held it" if self.held_until is None else f"it held the job only until {self.held_until:.2f} s"
        if self.moved_by_heartbeat is not None:
            return text + (f": a heartbeat at {self.moved_by_heartbeat:.2f} s moved the lease of a job handed back, "
                           f"and the claim saw {seen}")
        return text + f": the claim saw {seen}, so the retry did not push run_at forward by the backoff's wait"


@dataclass
class Spacing:
    judged: int = 0  # committed retries whose next attempt was claimed
    early: list[Early] = field(default_factory=list)

    def line(self) -> str:
        return f"{self.judged - len(self.early)} of {self.judged}" + (
            f" (first early: job {self.early[0].job})" if self.early else "")


def spacing(run: Run) -> Spacing:
    result = Spacing()
    claims = {(c["job_id"], c["attempt"]): c for c in run.claims}  # a claim adds one to attempts: one row each
    for retry in (e for e in run.events if e.kind == "retry_due"):
        claim = claims.get((retry.job, retry.attempt + 1))
        if claim is None:
            continue
        result.judged += 1
        due = retry.facts["due"]
        if claim["t"] >= due:
            continue
        if not claim["was_free"]:
            piece, beat = claim["piece"], None
        else:
            since = max((e.t for e in run.events if e.kind == "retried" and e.job == retry.job
                         and e.attempt == retry.attempt), default=retry.t)  # noted in the retry's transaction
            beats = [e.t for e in run.events if e.kind == "heartbeat" and e.job == retry.job
                     and e.facts.get("moved") and since <= e.t <= claim["t"]]
            piece, beat = ("04.heartbeat", beats[0]) if beats else ("07.backoff", None)
        result.early.append(Early(retry.job, retry.attempt, due, claim["t"], claim["held_until"], claim["was_free"],
                                  piece, beat))
    return result

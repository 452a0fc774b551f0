"""Lab 14, the final exam: the learner's queue, assembled from their answers to 03, 04 and 07, drained under
fire (course/grading/exam/). The grade is the run's report: each outcome and each piece's rule is one
check, and a failure's note is the first violation's job timeline, naming the piece."""

from __future__ import annotations

from course.errors import CourseError
from course.grading.boundary.wire import Opaque
from course.grading.checks import exercise_check
from course.grading.exam import judge, run
from course.grading.exam.pieces import Pieces
from course.grading.trial import NotStarted, Trial


def _note(verdict, piece: str | None = None) -> str | None:
    """The first violation (of this piece, when named) with its job's timeline: what the learner reads."""
    found = [v for v in verdict.violations if piece is None or v.piece == piece]
    if not found:
        return None
    first = found[0]
    text = f"at {first.t:.2f} s: {first.what} -> your {first.piece}"
    return text + ("\n" + verdict.timeline(first.job) if first.job is not None else "")


def _outcome_note(verdict, jobs: list[int]) -> str | None:
    if not jobs:
        return None
    cause = _note(verdict)
    return (cause + "\n" if cause else "") + verdict.timeline(jobs[0])


@exercise_check("14.exam")
def exam_check(t: Trial, pieces, seed=None):
    if isinstance(pieces, Opaque) and pieces.type_name.endswith(".Pieces"):
        # The exam notebook's own `pieces` is a value of its sandbox: the class grader's checker loads the
        # pieces from the notebooks handed in beside it instead (checker._answers_beside, exam/hosted.py).
        # Reaching here means it did not: the grader's failure, not the student's.
        raise CourseError("14.exam got the exam notebook's own `pieces`, which the class grader cannot run: it "
                          "grades the pieces of the notebooks 03, 04 and 07 handed in beside the exam")
    if not isinstance(pieces, Pieces):
        t.require("pieces is what exam.assemble(...) returns", ok=False, got=type(pieces).__name__,
                  expected="Pieces", note="run the cell `pieces = exam.assemble(\".\")` again, unchanged")
    if pieces.missing:
        t.not_started = ("the exam is made of your answers in the earlier labs, and these are missing (finish them "
                         "there and save those notebooks): " + "; ".join(f"{eid} ({why})" for eid, why in pieces.missing.items()))
        raise NotStarted
    result = run(pieces, seed=t.seed if seed is None else seed, progress=False)
    t.seed = result.seed
    verdict = judge(result)
    for event in verdict.raised:
        t.expect(f"your {event.facts['piece']} runs without raising", ok=False, got=event.detail)
    t.expect("the run finished: the table emptied before the time limit", ok=not (result.timed_out or result.stuck),
             got=f"{len(result.stuck)} job(s) still in the table", expected="0",
             note=_outcome_note(verdict, verdict.stuck))
    t.expect("no job lost: each one booked, or dead-lettered if it was poison", ok=not verdict.lost,
             got=f"{len(verdict.lost)} lost (first: job {verdict.lost[0]})" if verdict.lost else "none",
             expected="none", note=_outcome_note(verdict, verdict.lost))
    t.expect("no effect duplicated: each job booked at most once", ok=not verdict.duplicated,
             got=(f"job {verdict.duplicated[0]} booked {verdict.bookings(verdict.duplicated[0])} times"
                  if verdict.duplicated else "at most once"), expected="at most once",
             note=_outcome_note(verdict, verdict.duplicated))
    wrong = verdict.poison_wrong
    t.expect("poison dead-lettered at the right attempt (a permanent error without a retry, a failing job at its "
             "last attempt or later)",
             ok=not wrong, got=f"job {wrong[0][0]}: {wrong[0][1]}" if wrong else "all of them",
             expected="all of them", note=_outcome_note(verdict, [job for job, _ in wrong]))
    for piece, rule in [("03.claim", "takes only a free job, and passes over a locked row"),
                        ("03.claim_batch", "takes only free jobs, no more than its limit, and passes over a locked row"),
                        ("04.fenced_ack", "deletes the job only while the lease is ours"),
                        ("04.heartbeat", "pushes our own lease, and no one else's"),
                        ("07.route", "retries until the last attempt, dead-letters at it, and never retries a PermanentError"),
                        ("07.backoff", "waits between 0 and min(300, 2^(attempt-1)) s, drawn across that range")]:
        broken = [v for v in verdict.violations if v.piece == piece]
        t.expect(f"your {piece} {rule}", ok=not broken,
                 got=f"{len(broken)} time(s)" if broken else "never broken", expected="never broken",
                 note=_note(verdict, piece))

"""Lab 14: retries spaced as the learner's backoff promised, judged by order from the claim log, never by
timing (course/grading/exam/spacing.py). A retry claimed late is always fine; claimed before it was due,
the claim log says whose rule broke: the claim's (it took a row still held), the heartbeat's (it moved
a lease after the retry), or the backoff's (the row did not hold its wait). Made-up runs, then a live one."""

import pytest

from course.grading.exam import assemble, judge, run
from course.grading.exam.soak import Event, Run
from course.grading.exam.spacing import spacing
from course.grading.notebooks import SOLUTIONS


def retried(job: int, attempt: int, at: float, delay_s: float, committed: bool = True) -> list[Event]:
    events = [Event(t=at, pid=1, kind="retried", worker=0, job=job, attempt=attempt,
                    facts={"delay_s": delay_s, "permanent": False, "applied": True})]
    if committed:
        events.append(Event(t=at + 0.01, pid=1, kind="retry_due", worker=0, job=job, attempt=attempt,
                            facts={"due": at + delay_s}))
    return events


def claim(job: int, attempt: int, at: float, held_until: float | None, piece: str = "03.claim") -> dict:
    return {"job_id": job, "attempt": attempt, "was_free": held_until is None or held_until <= at,
            "piece": piece, "held_until": held_until, "t": at}


def a_run(events: list[Event], claims: list[dict]) -> Run:
    return Run(9, {1: "poison"}, events, ledger={}, dead={1: (3, "max_attempts")}, stuck={}, claims=claims,
               timed_out=False, elapsed_s=30.0, kills=0, freezes=0)


def test_a_retry_claimed_once_due_or_later_is_spaced_as_promised():
    # 2.5 s after a 2 s backoff: late is fine (a loaded machine claims late), and counted as judged
    result = a_run(retried(1, 2, at=3.0, delay_s=2.0), [claim(1, 2, 1.0, None), claim(1, 3, 7.5, 5.0)])
    assert (spacing(result).judged, spacing(result).early) == (1, [])
    assert judge(result).violations == []
    assert "retries claimed only once due:           1 of 1" in judge(result).render()


def test_a_backoff_whose_retries_run_at_once_fails_naming_07_backoff():
    # The backoff promised 2 s after attempt 2 (its ceiling); run_at was not pushed forward by it (the row
    # held the job until 3.0 s), so the next attempt was claimed 0.3 s after the retry: the row was free,
    # the claim is not to blame.
    result = a_run(retried(1, 2, at=3.0, delay_s=2.0), [claim(1, 3, 3.3, 3.0)])
    [early] = spacing(result).early
    assert (early.piece, early.was_free) == ("07.backoff", True)
    verdict = judge(result)
    assert [v.piece for v in verdict.violations] == ["07.backoff"], verdict.render()
    text = verdict.render()
    assert "did not push run_at forward" in text and "-> your 07.backoff" in text and "NOT PASSED" in text
    assert "(first early: job 1)" in text and "retry_due" in text  # the timeline shows when it was due


def test_a_claim_that_takes_a_retry_not_yet_due_is_blamed_on_the_claim_once():
    # The row held the wait (held_until = due) and the claim took it anyway: 03.claim's rule, already judged
    # by the claim log's was_free; counted as early here, not blamed twice.
    result = a_run(retried(1, 2, at=3.0, delay_s=2.0), [claim(1, 3, 3.3, 5.0)])
    [early] = spacing(result).early
    assert (early.piece, early.was_free) == ("03.claim", False)
    assert [v.piece for v in judge(result).violations] == ["03.claim"]


def test_a_heartbeat_that_moves_a_handed_back_lease_is_named():
    beat = Event(t=3.2, pid=1, kind="heartbeat", worker=0, job=1, attempt=2,
                 facts={"ours": True, "moved": True, "extended": True, "returned": True, "held_until": 3.25})
    result = a_run([*retried(1, 2, at=3.0, delay_s=2.0), beat], [claim(1, 3, 3.3, 3.25)])
    assert [e.piece for e in spacing(result).early] == ["04.heartbeat"]


def test_a_retry_whose_commit_never_happened_or_never_claimed_again_is_not_judged():
    # a retry cut before its commit made no promise (the old lease runs out, the job is claimed again)
    cut = a_run(retried(1, 2, at=3.0, delay_s=2.0, committed=False), [claim(1, 3, 3.3, 3.0)])
    assert (spacing(cut).judged, spacing(cut).early) == (0, [])
    never = a_run(retried(1, 2, at=3.0, delay_s=2.0), [])
    assert spacing(never).judged == 0


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_solutions_retries_are_claimed_only_once_due(monkeypatch):
    # A workload of poison jobs alone (as many as the run's fault plan needs): each fails at every attempt,
    # and with no other kind of job waiting its retry is claimed as soon as the table lets it, so a retry
    # made due at once is claimed before its backoff was up (with exam.sql's retry setting run_at = now(),
    # this fails naming 07.backoff). Late claims, at any load, pass.
    from course.grading.exam import soak

    monkeypatch.setattr(soak, "workload", lambda rng: [{"kind": "poison", "work_s": 0.05} for _ in range(24)])
    verdict = judge(run(assemble(SOLUTIONS), seed=7, progress=False))
    assert verdict.spacing.judged >= 24 and verdict.spacing.early == [], verdict.render()
    assert verdict.violations == [], verdict.render()

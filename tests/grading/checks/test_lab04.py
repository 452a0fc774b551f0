"""Lab 04's checks fail plausible wrong heartbeats and acks, for the reason a learner needs to hear.

The heartbeat's check runs real worker processes (with SIGKILLs) only once the step-by-step checks pass,
so most wrong answers here fail in well under a second; one test runs the worker stage itself on a
heartbeat that does nothing, to show that stage fails for the right reason too.
"""

import re

import pytest

from course.grading import run_check
from course.grading.checks import lab04
from course.grading.report import Report
from course.grading.trial import Trial

from .wrong_answers import assert_fails_with, failed


def extend_with(statement: str):
    def extend_lease(conn, job, lease_s):
        return conn.execute(statement, {"id": job.id, "lease": job.lease_token, "lease_s": lease_s}).rowcount == 1

    return extend_lease


NOW_PLUS = "now() + make_interval(secs => %(lease_s)s)"

# -- 04.heartbeat ------------------------------------------------------------------------------------


def test_a_heartbeat_that_reports_success_and_extends_nothing():
    report = run_check("04.heartbeat", extend_lease=lambda conn, job, lease_s: True)
    assert failed(report) == ["moves the end of the lease to lease_s seconds from now"], report.render()


def test_a_heartbeat_without_the_lease_fence_takes_the_job_back_from_its_new_owner():
    report = run_check("04.heartbeat", extend_lease=extend_with(
        f"UPDATE jobs SET run_at = {NOW_PLUS} WHERE id = %(id)s"))
    assert_fails_with(report, "does not extend a lease that is no longer ours",
                      "returns something false when the lease is no longer ours")
    assert "in real workers" not in report.render()  # the worker stage waits for the steps to pass


def test_a_heartbeat_that_adds_to_the_end_of_the_lease():
    report = run_check("04.heartbeat", extend_lease=extend_with(
        "UPDATE jobs SET run_at = run_at + make_interval(secs => %(lease_s)s) WHERE id = %(id)s AND lease = %(lease)s"))
    assert_fails_with(report, "moves the end of the lease to lease_s seconds from now")
    # The 2 s lease plus 30, less the moments the check took (more of them on a busy machine):
    shown = [float(s) for s in re.findall(r"the lease ends (\d+\.\d) s from now", report.render())]
    assert shown and 30.5 < shown[0] <= 32.0, report.render()


def test_a_heartbeat_that_hides_the_job_for_good_would_strand_a_dead_workers_job():
    report = run_check("04.heartbeat", extend_lease=extend_with(
        "UPDATE jobs SET run_at = 'infinity' WHERE id = %(id)s AND lease = %(lease)s"))
    assert_fails_with(report, "moves the end of the lease to lease_s seconds from now")


def test_a_heartbeat_that_always_says_yes():
    fenced = extend_with(f"UPDATE jobs SET run_at = {NOW_PLUS} WHERE id = %(id)s AND lease = %(lease)s")

    def extend_lease(conn, job, lease_s):
        fenced(conn, job, lease_s)
        return True

    report = run_check("04.heartbeat", extend_lease=extend_lease)
    assert failed(report) == ["returns something false when the lease is no longer ours",
                              "returns something false for a job that is gone"], report.render()


@pytest.mark.slow
def test_the_worker_stage_catches_a_job_running_twice_at_once():
    t = Trial("04.heartbeat")
    try:
        lab04.slow_job_under_a_short_lease(t, t.scratch(), lambda conn, job, lease_s: True, seed=4, timeout_s=8)
    finally:
        t.close()
    report = Report("04.heartbeat", tuple(t.results), seed=t.seed)
    # The rule this answer breaks: a lease that is never extended lets a second worker in. What else fails
    # depends on the machine's speed: on a quiet one the fenced acks fail and no effect is kept (not "done
    # exactly once"); on a busy one the job reaches its last attempt and is dead-lettered first (excused from
    # "once", but then not "done within the time limit"). Either way the check as a whole fails.
    assert_fails_with(report, "no job runs in two workers at the same time")
    assert {"in real workers: each job's work is done exactly once",
            "in real workers: every job is done within 8 s, the killed workers' ones included"} & set(failed(report))
    text = report.render()
    assert "timeline of job" in text and "check('04.heartbeat', seed=4)" in text


# -- 04.fenced_ack -------------------------------------------------------------------------------------


def ack_with(statement: str):
    def ack(conn, job_id, lease_token):
        return conn.execute(statement, {"id": job_id, "lease": lease_token}).rowcount == 1

    return ack


def test_the_lessons_plain_ack_lets_a_zombie_delete_the_rescuers_job():
    report = run_check("04.fenced_ack", ack=ack_with("DELETE FROM jobs WHERE id = %(id)s"))
    assert_fails_with(report, "a worker that lost its lease deletes nothing",
                      "a job handed back for a retry is not deleted")
    assert "B's lease ends in the future too" in report.render()


def test_an_ack_fenced_by_the_clock_is_fooled_by_the_new_owners_lease():
    report = run_check("04.fenced_ack", ack=ack_with("DELETE FROM jobs WHERE id = %(id)s AND run_at > now()"))
    assert_fails_with(report, "a worker that lost its lease deletes nothing")


def test_an_ack_that_always_reports_success():
    fenced = ack_with("DELETE FROM jobs WHERE id = %(id)s AND lease = %(lease)s")

    def ack(conn, job_id, lease_token):
        fenced(conn, job_id, lease_token)
        return True

    report = run_check("04.fenced_ack", ack=ack)
    assert_fails_with(report, "returns something false when it deleted nothing")


def test_an_ack_that_returns_nothing():
    def ack(conn, job_id, lease_token):
        conn.execute("DELETE FROM jobs WHERE id = %s AND lease = %s", [job_id, lease_token])

    report = run_check("04.fenced_ack", ack=ack)
    assert_fails_with(report, "returns something true when it deleted the job")


# -- 04.quiz -----------------------------------------------------------------------------------------------


def test_the_quiz_fails_a_wrong_letter():
    report = run_check("04.quiz", q1="c", q2="c", q3="b", q4="a", q5="c")
    assert failed(report) == ["q1: the worker that deleted its job on read, then died"], report.render()


def test_an_ack_that_marks_the_job_instead_of_deleting_it():
    report = run_check("04.fenced_ack", ack=ack_with(
        "UPDATE jobs SET run_at = 'infinity' WHERE id = %(id)s AND lease = %(lease)s"))  # "done", kept forever
    assert_fails_with(report, "deletes the job while the lease is ours")


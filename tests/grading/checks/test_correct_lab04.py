"""Lab 04's checks pass correct acks and heartbeats written unlike the reference (issue 22): other SQL,
helpers, other true and false values, and the answer the hints spell out. The heartbeats also run the
check's worker stage (real processes, SIGKILLs): a few seconds each.
"""

from datetime import datetime, timedelta, timezone

import pytest

from course.grading import run_check

# -- 04.fenced_ack ---------------------------------------------------------------------------------------------


def hints_spelled_out(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]).rowcount == 1


def the_deleted_row_or_none(conn, job_id, lease_token):
    """The token first, the row itself as the true value."""
    return conn.execute("DELETE FROM jobs WHERE lease_token = %(token)s AND id = %(id)s RETURNING id, type",
                        {"id": job_id, "token": lease_token}).fetchone()


def locked_then_deleted(conn, job_id, lease_token):
    """Two statements in one transaction: the row lock keeps anyone from claiming it in between."""
    with conn.transaction():
        row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR UPDATE", [job_id]).fetchone()
        if row is None or row[0] != lease_token:
            return 0
        return conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount


def _done(conn, pairs):
    return conn.execute("DELETE FROM jobs USING (SELECT unnest(%s::bigint[]) AS id, unnest(%s::uuid[]) AS lease_token) "
                        "AS done WHERE jobs.id = done.id AND jobs.lease_token = done.lease_token",
                        [[job_id for job_id, _ in pairs], [token for _, token in pairs]]).rowcount


def through_a_batch_helper(conn, job_id, lease_token):
    """The course's ack_many, for a batch of one."""
    return bool(_done(conn, [(job_id, lease_token)]))


def the_token_as_text(conn, job_id, lease_token):
    """The token compared as text, the count of rows deleted as the true or false value."""
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token::text = %s", [job_id, str(lease_token)]).rowcount


def waits_for_a_locked_row(conn, job_id, lease_token):
    """Round f4 (f4r04): lock, compare, delete by id in one transaction, as a one-row batch through unnest."""
    with conn.transaction():
        row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR UPDATE", [job_id]).fetchone()
        if row is None or row[0] != lease_token:
            return False
        return len(conn.execute("DELETE FROM jobs USING unnest(%s::bigint[]) AS done (id) WHERE jobs.id = done.id "
                                "RETURNING jobs.id", [[job_id]]).fetchall())


def through_the_course_ack(conn, job_id, lease_token):
    """Round f4 (f4r04): the course's own ack under another name, given a stand-in for the job."""
    from types import SimpleNamespace

    from course.core.queue import ack as course_ack
    return course_ack(conn, SimpleNamespace(id=job_id, lease_token=lease_token))


def counted_in_a_cte(conn, job_id, lease_token):
    return conn.execute("WITH gone AS (DELETE FROM jobs WHERE id = %s AND lease_token = %s RETURNING 1) "
                        "SELECT count(*) = 1 FROM gone", [job_id, lease_token]).fetchone()[0]


@pytest.mark.parametrize("ack", [hints_spelled_out, counted_in_a_cte, the_deleted_row_or_none, locked_then_deleted,
                                 through_a_batch_helper, the_token_as_text, waits_for_a_locked_row,
                                 through_the_course_ack],
                         ids=lambda answer: answer.__name__)
def test_correct_acks_pass(ack):
    report = run_check("04.fenced_ack", ack=ack)
    assert report.passed, report.render()


# -- 04.heartbeat ------------------------------------------------------------------------------------------------


def beat_hints_spelled_out(conn, job, lease_s):
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s",
                        [lease_s, job.id, job.lease_token]).rowcount == 1


def the_new_end_or_none(conn, job, lease_s):
    """The course queue's own heartbeat returns the new end of the lease, or None."""
    row = conn.execute("UPDATE jobs SET run_at = now() + %(s)s * interval '1 second' "
                       "WHERE lease_token = %(token)s AND id = %(id)s RETURNING run_at",
                       {"s": lease_s, "token": job.lease_token, "id": job.id}).fetchone()
    return row and row[0]


def by_pythons_clock(conn, job, lease_s):
    until = datetime.now(timezone.utc) + timedelta(seconds=lease_s)
    return conn.execute("UPDATE jobs SET run_at = %s WHERE id = %s AND lease_token = %s",
                        [until, job.id, job.lease_token]).rowcount > 0


def locked_then_extended(conn, job, lease_s):
    with conn.transaction():
        row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR NO KEY UPDATE", [job.id]).fetchone()
        if row is None or row[0] != job.lease_token:
            return False
        conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s", [lease_s, job.id])
        return True


def noted_in_the_bookkeeping(conn, job, lease_s):
    """The beat also notes itself in claimed_at (free: the statement says so)."""
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), claimed_at = clock_timestamp() "
                        "WHERE id = %s AND lease_token = %s", [lease_s, job.id, job.lease_token]).rowcount == 1


def fenced_by_attempts_too(conn, job, lease_s):
    """A second fence that always holds while the token does (a claim changes both), the count as the value."""
    return conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s AND lease_token = %s "
                        "AND attempts = %s", [lease_s, job.id, job.lease_token, job.attempts]).rowcount


@pytest.mark.parametrize("extend_lease", [beat_hints_spelled_out, the_new_end_or_none, by_pythons_clock,
                                          locked_then_extended, noted_in_the_bookkeeping, fenced_by_attempts_too],
                         ids=lambda answer: answer.__name__)
@pytest.mark.slow
def test_correct_heartbeats_pass(extend_lease):
    report = run_check("04.heartbeat", extend_lease=extend_lease)
    assert report.passed, report.render()
    assert any("in real workers" in result.name for result in report.results)  # the worker stage ran too

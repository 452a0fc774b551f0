"""Lab 09's checks pass correct answers written unlike the reference (issue 22: a check that fails a correct
answer is as wrong as one that passes a wrong one): other ways to refuse and to choose the queue, an id read
with lastval(), raw SQL, a loop in one transaction, another priority below the default, and the answers the
hints spell out.
"""

import pytest
from psycopg.types.json import Jsonb

from course.core import queue as jobs
from course.grading import run_check
from course.programs import newsletter as stayhub
from course.programs.newsletter import BULK, IMPACT, NEWSLETTER_PRIORITY, URGENT, URGENT_WITHIN_S

# -- 09.route ---------------------------------------------------------------------------------------------


def route_hints_spelled_out(conn, job_type, payload):
    """Hint 3, word for word."""
    impact = IMPACT[job_type]
    queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK
    return jobs.enqueue(conn, job_type, payload, queue=queue_name)


def refused_with_a_value_error(conn, job_type, payload):
    """Refuses with its own message (a ValueError); the queue chosen by indexing a pair."""
    try:
        late = IMPACT[job_type].late_after_s
    except KeyError:
        raise ValueError(f"nobody has said how late {job_type!r} may be: add it to IMPACT first") from None
    return jobs.enqueue(conn, job_type, payload, queue=(URGENT, BULK)[late > URGENT_WITHIN_S])


def the_module_read_at_call_time(conn, job_type, payload):
    """The table read through its module, the id read back with lastval() (this session's own)."""
    if job_type not in stayhub.IMPACT:
        raise KeyError(job_type)
    urgent = not stayhub.IMPACT[job_type].late_after_s > stayhub.URGENT_WITHIN_S
    jobs.enqueue(conn, job_type, dict(payload), queue=stayhub.URGENT if urgent else stayhub.BULK)
    return conn.execute("SELECT lastval()").fetchone()[0]


def raw_sql(conn, job_type, payload):
    """Its own INSERT, as queue.enqueue writes the row (no wake-up notice: polling finds the job)."""
    late = IMPACT[job_type].late_after_s
    return conn.execute("INSERT INTO jobs (queue, type, payload) VALUES (%s, %s, %s) RETURNING id",
                        [URGENT if late <= URGENT_WITHIN_S else BULK, job_type, Jsonb(payload)]).fetchone()[0]


@pytest.mark.parametrize("enqueue_job", [route_hints_spelled_out, refused_with_a_value_error,
                                         the_module_read_at_call_time, raw_sql])
def test_a_correct_route_passes(enqueue_job):
    report = run_check("09.route", enqueue_job=enqueue_job)
    assert report.passed, report.render()


# -- 09.newsletter ----------------------------------------------------------------------------------------


def newsletter_hints_spelled_out(conn, guest_ids):
    """Hint 3, word for word."""
    return jobs.enqueue_many(conn, "send_newsletter", [{"guest_id": g} for g in guest_ids],
                             priority=NEWSLETTER_PRIORITY)


def a_loop_in_one_transaction(conn, guest_ids):
    with conn.transaction():
        return [jobs.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=NEWSLETTER_PRIORITY)
                for g in guest_ids]


def just_below_the_default(conn, guest_ids):
    """Priority -1: below every job enqueued normally, which is all the rule asks."""
    ids = jobs.enqueue_many(conn, "send_newsletter", ({"guest_id": g} for g in guest_ids), priority=-1)
    return list(ids)


def one_insert_from_unnest(conn, guest_ids):
    """One statement of its own, the ids back in the guests' order."""
    if not guest_ids:
        return []
    rows = conn.execute("""
        INSERT INTO jobs (type, payload, priority)
        SELECT 'send_newsletter', jsonb_build_object('guest_id', guest), %s
        FROM unnest(%s::bigint[]) WITH ORDINALITY AS g (guest, n) ORDER BY n
        RETURNING id""", [NEWSLETTER_PRIORITY, list(guest_ids)]).fetchall()
    return [row[0] for row in rows]


def ids_as_a_tuple(conn, guest_ids):
    """The ids in the guests' order, as a tuple (`()` for no guests): a sequence of them is what the rule asks."""
    with conn.transaction():
        return tuple(jobs.enqueue(conn, "send_newsletter", {"guest_id": g}, priority=-3) for g in guest_ids)


@pytest.mark.parametrize("enqueue_newsletter", [newsletter_hints_spelled_out, a_loop_in_one_transaction,
                                                just_below_the_default, one_insert_from_unnest, ids_as_a_tuple])
def test_a_correct_newsletter_passes(enqueue_newsletter):
    report = run_check("09.newsletter", enqueue_newsletter=enqueue_newsletter)
    assert report.passed, report.render()


def test_the_checks_reference_newsletter_is_the_hints():
    from course.grading.checks import lab09

    report = run_check("09.newsletter", enqueue_newsletter=lab09.reference_newsletter)
    assert report.passed, report.render()

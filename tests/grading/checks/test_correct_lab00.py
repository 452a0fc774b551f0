"""Lab 00's check passes correct first jobs written unlike the reference (issue 22: a check that fails a
correct answer is as wrong as one that passes a wrong one): other SQL, other helpers, an alias, the
statement's free choices (queue, priority, a unique key per user), and the answer the hints spell out.
"""

import pytest
from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import queue
from course.core.queue import enqueue as store_a_job
from course.grading import run_check


def hints_spelled_out(conn, user_id):
    """Hint 3, word for word."""
    return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})


def own_insert(conn, user_id):
    """Its own INSERT ... RETURNING, the payload built in SQL."""
    return conn.execute("INSERT INTO jobs (type, payload) VALUES ('send_welcome_email', "
                        "jsonb_build_object('user_id', %s::bigint)) RETURNING id", [user_id]).fetchone()[0]


def composed_in_a_savepoint(conn, user_id):
    """psycopg.sql, a cursor of its own, inside a transaction block of its own (a savepoint in the caller's)."""
    statement = sql.SQL("INSERT INTO {} ({}, {}) VALUES (%s, %s) RETURNING {}").format(
        sql.Identifier("jobs"), sql.Identifier("type"), sql.Identifier("payload"), sql.Identifier("id"))
    with conn.transaction(), conn.cursor() as cursor:
        (job_id,) = cursor.execute(statement, ["send_welcome_email", Jsonb({"user_id": user_id})]).fetchone()
    return job_id


def its_own_queue_and_key(conn, user_id):
    """An alias, and choices the statement leaves free: a queue, a priority, a key per user."""
    return store_a_job(conn, "send_welcome_email", payload=dict(user_id=user_id), queue="emails", priority=5,
                       unique_key=f"welcome:{user_id}")


def one_of_many(conn, user_id):
    """enqueue_many with one payload, and the id it gives back."""
    (job_id,) = queue.enqueue_many(conn, "send_welcome_email", [{"user_id": user_id}])
    return job_id


def with_currval(conn, user_id):
    """The id from the sequence this session just used (currval is the session's own)."""
    conn.execute("INSERT INTO jobs (type, payload) VALUES (%s, %s)", ["send_welcome_email", Jsonb({"user_id": user_id})])
    return conn.execute("SELECT currval(pg_get_serial_sequence('jobs', 'id'))").fetchone()[0]


@pytest.mark.parametrize("answer", [hints_spelled_out, own_insert, composed_in_a_savepoint, its_own_queue_and_key,
                                    one_of_many, with_currval])
def test_correct_first_jobs_pass(answer):
    report = run_check("00.first_job", enqueue_welcome=answer)
    assert report.passed, report.render()


@pytest.mark.parametrize("seed", [2, 3])
def test_the_model_passes_on_other_seeds(seed):
    assert run_check("00.first_job", enqueue_welcome=hints_spelled_out, seed=seed).passed

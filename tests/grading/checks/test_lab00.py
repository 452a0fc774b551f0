"""Lab 00's check fails plausible wrong first jobs, each for the rule it breaks (and no other); each wrong quiz
letter fails its question alone.

Each wrong answer is a function a learner could write. The check runs it and the reference on the same
generated tables and callers (a real PostgreSQL), then with another sign-up committing between its
statements; the test asserts exactly which checks fail.
"""

import json

import psycopg
import pytest
from psycopg.types.json import Jsonb

from course.core import queue
from course.infra import db
from course.grading import run_check

from .wrong_answers import failed, fails_exactly

WELCOME = "send_welcome_email"


def test_the_model_answer_passes():
    report = run_check("00.first_job", enqueue_welcome=lambda conn, user_id: queue.enqueue(
        conn, WELCOME, {"user_id": user_id}))
    assert report.passed, report.render()


def twice(conn, user_id):
    queue.enqueue(conn, WELCOME, {"user_id": user_id})
    return queue.enqueue(conn, WELCOME, {"user_id": user_id})


def another_type(conn, user_id):
    return queue.enqueue(conn, "welcome_email", {"user_id": user_id})


def data_in_the_payload(conn, user_id):
    return queue.enqueue(conn, WELCOME, {"user_id": user_id, "email": f"user{user_id}@example.com"})


def the_id_as_text(conn, user_id):
    return queue.enqueue(conn, WELCOME, {"user_id": str(user_id)})


def always_user_seven(conn, user_id):
    return queue.enqueue(conn, WELCOME, {"user_id": 7})


def returns_nothing(conn, user_id):
    queue.enqueue(conn, WELCOME, {"user_id": user_id})


def returns_the_users_id(conn, user_id):
    queue.enqueue(conn, WELCOME, {"user_id": user_id})
    return user_id


def returns_the_row(conn, user_id):
    return conn.execute("INSERT INTO jobs (type, payload) VALUES (%s, %s) RETURNING id",
                        [WELCOME, Jsonb({"user_id": user_id})]).fetchone()


def the_newest_id(conn, user_id):
    """The largest id is mine, surely: not when another sign-up stores its job in between."""
    queue.enqueue(conn, WELCOME, {"user_id": user_id})
    return conn.execute("SELECT max(id) FROM jobs").fetchone()[0]


def the_number_of_jobs(conn, user_id):
    queue.enqueue(conn, WELCOME, {"user_id": user_id})
    return conn.execute("SELECT count(*) FROM jobs").fetchone()[0]


def a_connection_of_its_own(conn, user_id):
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with db.connect(schema) as own:  # commits at once, whatever the caller does
        return queue.enqueue(own, WELCOME, {"user_id": user_id})


def commits_to_be_safe(conn, user_id):
    job_id = queue.enqueue(conn, WELCOME, {"user_id": user_id})
    conn.commit()
    return job_id


def rolls_back_first(conn, user_id):
    conn.rollback()  # "start clean"
    return queue.enqueue(conn, WELCOME, {"user_id": user_id})


def one_key_for_everyone(conn, user_id):
    return queue.enqueue(conn, WELCOME, {"user_id": user_id}, unique_key="welcome")


def clears_old_welcomes(conn, user_id):
    conn.execute("DELETE FROM jobs WHERE type = %s", [WELCOME])  # "so the worker has only the new one"
    return queue.enqueue(conn, WELCOME, {"user_id": user_id})


def json_text_in_the_payload(conn, user_id):
    """The payload stored as a JSON string that holds JSON, not as a JSON object."""
    return conn.execute("INSERT INTO jobs (type, payload) VALUES (%s, %s) RETURNING id",
                        [WELCOME, Jsonb(json.dumps({"user_id": user_id}))]).fetchone()[0]


def the_first_welcome_job(conn, user_id):
    queue.enqueue(conn, WELCOME, {"user_id": user_id})
    return conn.execute("SELECT id FROM jobs WHERE type = %s ORDER BY id LIMIT 1", [WELCOME]).fetchone()[0]


def swallows_the_enqueue_error(conn, user_id):
    """Catches what enqueue raises, so the sign-up "never fails": it goes on without its welcome email."""
    try:
        return queue.enqueue(conn, WELCOME, {"user_id": user_id})
    except Exception:
        return None


def swallows_it_in_a_savepoint(conn, user_id):
    """The same, tidier: a savepoint keeps the caller's transaction usable, and the job is still not stored."""
    try:
        with conn.transaction():
            return queue.enqueue(conn, WELCOME, {"user_id": user_id})
    except psycopg.Error:
        return -1


WRONG = {  # the wrong answer, the checks it must fail, and checks it may fail too
    "twice": (twice, ["stores exactly one job"], []),
    "another_type": (another_type, ["the job's type is 'send_welcome_email'"], []),
    "data_in_the_payload": (data_in_the_payload, ["the payload carries the user's id and nothing else"], []),
    "the_id_as_text": (the_id_as_text, ["the payload carries the user's id and nothing else"], []),
    "always_user_seven": (always_user_seven, ["the payload carries the user's id and nothing else"], []),
    "json_text_in_the_payload": (json_text_in_the_payload, ["the payload carries the user's id and nothing else"],
                                 []),
    "returns_nothing": (returns_nothing, ["returns the new job's id (an int)"], []),
    "returns_the_row": (returns_the_row, ["returns the new job's id (an int)"], []),
    "returns_the_users_id": (returns_the_users_id, ["the returned id is the stored job's id"], []),
    "the_number_of_jobs": (the_number_of_jobs, ["the returned id is the stored job's id"], []),
    "the_newest_id": (the_newest_id, ["the returned id is the stored job's id"], []),
    "the_first_welcome_job": (the_first_welcome_job, ["the returned id is the stored job's id"], []),
    "a_connection_of_its_own": (a_connection_of_its_own, ["uses the connection it is given"], []),
    "commits_to_be_safe": (commits_to_be_safe, ["uses the connection it is given"], []),
    "rolls_back_first": (rolls_back_first, ["uses the connection it is given"], []),
    "one_key_for_everyone": (one_key_for_everyone, ["returns the new job's id (an int)"], ["stores exactly one job"]),
    "clears_old_welcomes": (clears_old_welcomes, ["stores exactly one job, and changes no other"], []),
    "swallows_the_enqueue_error": (swallows_the_enqueue_error, ["raises when the job cannot be stored"], []),
    "swallows_it_in_a_savepoint": (swallows_it_in_a_savepoint, ["raises when the job cannot be stored"], []),
}


@pytest.mark.parametrize("case", WRONG)
def test_wrong_first_jobs_fail(case):
    answer, must, may = WRONG[case]
    report = run_check("00.first_job", enqueue_welcome=answer)
    assert fails_exactly(report, must, may), report.render()


def test_the_example_is_the_smallest_and_a_seed_replays_it():
    first = run_check("00.first_job", enqueue_welcome=data_in_the_payload, seed=5).render()
    assert "smallest failing example: an empty jobs table; then user 7 signs up" in first, first
    assert run_check("00.first_job", enqueue_welcome=data_in_the_payload, seed=5).render() == first


def test_a_returned_id_taken_from_the_table_is_told_about_the_other_sign_up():
    text = run_check("00.first_job", enqueue_welcome=the_newest_id).render()
    assert "another sign-up stored its job between your statements" in text, text


# -- 00.quiz ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wrong, question", [
    (dict(q1="a"), "q1"),  # a failing check prints why, not the next hint
    (dict(q2="a"), "q2"),  # a pass proves all: the misconception the question is about
    (dict(q3="a"), "q3"),  # a payload follows the row it was copied from
], ids=lambda x: x if isinstance(x, str) else "")
def test_a_wrong_quiz_letter_fails_its_question_alone_without_giving_the_answer(wrong, question):
    report = run_check("00.quiz", **{"q1": "b", "q2": "c", "q3": "b", **wrong})
    assert [name.split(":")[0] for name in failed(report)] == [question], report.render()
    assert "'b'" not in report.render() and "'c'" not in report.render()

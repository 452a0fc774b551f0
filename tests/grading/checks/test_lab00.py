"""Lab 00's check fails plausible wrong first jobs, each for the one rule it breaks."""

from course.core import queue
from course.infra import db
from course.grading import run_check

from .wrong_answers import assert_fails_with, failed


def test_the_model_answer_passes():
    report = run_check("00.first_job", enqueue_welcome=lambda conn, user_id: queue.enqueue(
        conn, "send_welcome_email", {"user_id": user_id}))
    assert report.passed, report.render()


def test_enqueueing_twice_stores_two_welcome_emails():
    def enqueue_welcome(conn, user_id):
        queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
        return queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})

    report = run_check("00.first_job", enqueue_welcome=enqueue_welcome)
    assert failed(report) == ["stores exactly one job"], report.render()


def test_a_job_of_another_type_is_not_the_welcome_email():
    report = run_check("00.first_job", enqueue_welcome=lambda conn, user_id: queue.enqueue(
        conn, "welcome_email", {"user_id": user_id}))
    assert failed(report) == ["the job's type is 'send_welcome_email'"], report.render()


def test_a_copy_of_the_user_in_the_payload_is_data_not_an_id():
    report = run_check("00.first_job", enqueue_welcome=lambda conn, user_id: queue.enqueue(
        conn, "send_welcome_email", {"user_id": user_id, "email": f"user{user_id}@example.com"}))
    assert failed(report) == ["the payload carries the user's id and nothing else"], report.render()


def test_returning_nothing_is_not_the_jobs_id():
    def enqueue_welcome(conn, user_id):
        queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})

    report = run_check("00.first_job", enqueue_welcome=enqueue_welcome)
    assert failed(report) == ["returns the new job's id (an int)"], report.render()


def test_returning_the_users_id_is_not_the_jobs_id():
    def enqueue_welcome(conn, user_id):
        queue.enqueue(conn, "send_welcome_email", {"user_id": user_id})
        return user_id

    report = run_check("00.first_job", enqueue_welcome=enqueue_welcome)
    assert failed(report) == ["the returned id is the stored job's id"], report.render()


def test_a_connection_of_its_own_escapes_the_callers_transaction():
    def enqueue_welcome(conn, user_id):
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        with db.connect(schema) as own:  # commits at once, whatever the caller does
            return queue.enqueue(own, "send_welcome_email", {"user_id": user_id})

    report = run_check("00.first_job", enqueue_welcome=enqueue_welcome)
    assert_fails_with(report, "uses the connection it is given")
    assert len(failed(report)) == 1, report.render()

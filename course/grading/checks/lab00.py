"""Lab 00: the warm-up exercise and the quiz."""


import psycopg

from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask


@exercise_check("00.first_job")
def first_job(t: Trial, enqueue_welcome):
    box = t.scratch()
    job_id = t.call(enqueue_welcome, box.conn, 7, during="enqueue_welcome(conn, 7)")
    t.require("returns the new job's id (an int)", ok=isinstance(job_id, int) and not isinstance(job_id, bool),
              got=job_id, example="enqueue_welcome(conn, 7) on an empty queue")
    rows = box.conn.execute("SELECT id, type, payload FROM jobs").fetchall()
    t.require("stores exactly one job", got=len(rows), expected=1, example="enqueue_welcome(conn, 7)")
    stored_id, stored_type, payload = rows[0]
    t.expect("the returned id is the stored job's id", got=job_id, expected=stored_id)
    t.expect("the job's type is 'send_welcome_email'", got=stored_type, expected="send_welcome_email")
    t.expect("the payload carries the user's id and nothing else", got=payload, expected={"user_id": 7},
             example="enqueue_welcome(conn, 7)")

    box.conn.execute("DELETE FROM jobs")
    with box.conn.transaction():
        t.call(enqueue_welcome, box.conn, 8, during="enqueue_welcome(conn, 8) inside a transaction")
        raise psycopg.Rollback  # the block's transaction rolls back; nothing is raised past it
    left = box.conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
    t.expect("uses the connection it is given (a rolled-back transaction leaves no job)", got=left, expected=0,
             example="with conn.transaction(): enqueue_welcome(conn, 8); then roll back",
             note="open no connection of your own: the caller's transaction must decide")


@exercise_check("00.quiz")
def quiz(t: Trial, q1, q2, q3):
    ask(t, "q1", q1, "c", "how to see the next hint", "the hint cell shows the exact call")
    ask(t, "q2", q2, "b", "what a passing check tells you", "can a handful of checks prove code correct?")
    ask(t, "q3", q3, "b", "what a job's payload carries", "what happens if the customer changes the data "
        "between enqueue and the worker's run?")

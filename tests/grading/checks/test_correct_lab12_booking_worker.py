"""12.booking_worker passes correct worker steps written unlike the reference (issue 22): one written in
plain SQL (its own claim, fenced ack, retry and dead-letter move), one that hands queue.fail a backoff that
knows the provider's Retry-After, one that asks queue.decide and stores the error as text with a
heartbeat beat before the ack — and the answer the last hint spells out."""

import pytest

from course.core import queue
from course.core.queue import PermanentError
from course.grading import manifest, run_check
from course.programs import stayhub


CLAIM = """
UPDATE jobs SET attempts = attempts + 1, lease_token = gen_random_uuid(),
       run_at = now() + make_interval(secs => %(lease_s)s), claimed_at = now()
 WHERE id = (SELECT id FROM jobs WHERE queue = 'default' AND run_at <= now()
              ORDER BY priority DESC, run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, queue, type, payload, priority, attempts, max_attempts, lease_token, run_at"""

BURY = """
WITH gone AS (DELETE FROM jobs WHERE id = %(id)s AND lease_token = %(token)s RETURNING *)
INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts, unique_key, reason, error, created_at)
SELECT id, queue, type, payload, priority, attempts, max_attempts, unique_key, %(reason)s, %(error)s, created_at FROM gone"""


def in_plain_sql(conn, handler, lease_s=stayhub.LEASE_S):
    """Every statement written out: the claim of lab 03, the fenced ack of lab 04, lab 07's route."""
    row = conn.execute(CLAIM, {"lease_s": lease_s}).fetchone()
    if row is None:
        return None
    job = queue.Job(*row)
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001
        line = f"{type(error).__name__}: {error}"
        if isinstance(error, PermanentError) or job.attempts >= job.max_attempts:
            reason = "permanent" if isinstance(error, PermanentError) else "max_attempts"
            conn.execute(BURY, {"id": job.id, "token": job.lease_token, "reason": reason, "error": line})
        else:
            wait = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0.0)
            conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = NULL, "
                         "last_error = %s WHERE id = %s AND lease_token = %s",
                         [wait, line, job.id, job.lease_token])
    else:
        conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job.id, job.lease_token])
    return job.id


def through_fail_with_retry_after(conn, handler, lease_s=stayhub.LEASE_S):
    """queue.fail decides permanent / budget / retry; the backoff it is given knows the error's Retry-After."""
    jobs = queue.claim(conn, limit=1, lease_s=lease_s)
    if not jobs:
        return None
    [job] = jobs
    try:
        handler(job, conn)
        queue.ack(conn, job)
    except Exception as error:  # noqa: BLE001
        asked = getattr(error, "retry_after_s", None) or 0.0
        queue.fail(conn, job, error, backoff=lambda attempt: max(asked, queue.backoff_delay(attempt)))
    return job.id


def decides_then_acts(conn, handler, lease_s=stayhub.LEASE_S):
    """queue.decide for the route, the error stored as its message alone, a fenced heartbeat before the ack."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if not job:
        return None
    failure = None
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001
        failure = error
    if failure is None:
        if queue.extend_lease(conn, job, lease_s) is not None:
            queue.ack(conn, job)
        return job.id
    match queue.decide(job, permanent=isinstance(failure, PermanentError)):
        case queue.Dead(reason=reason):
            queue.bury(conn, job, reason, str(failure))
        case queue.Retry(delay_s=delay_s):
            queue.retry(conn, job, max(delay_s, getattr(failure, "retry_after_s", None) or 0.0), str(failure))
    return job.id


def the_last_hint():
    """The last hint's code, as a learner would paste it into the exercise's function."""
    code = manifest.load().exercise("12.booking_worker").hints[-1]
    body = "\n".join("    " + line for line in code.splitlines())
    scope = {"queue": queue, "PermanentError": PermanentError, "stayhub": stayhub}
    exec(f"def work_one(conn, handler, lease_s=stayhub.LEASE_S):\n{body}\n", scope)  # noqa: S102
    return scope["work_one"]


@pytest.mark.slow
@pytest.mark.parametrize("work_one", [in_plain_sql, through_fail_with_retry_after, decides_then_acts, "the last hint"],
                         ids=lambda f: f if isinstance(f, str) else f.__name__)
def test_correct_booking_workers_pass(work_one):
    answer = the_last_hint() if work_one == "the last hint" else work_one
    report = run_check("12.booking_worker", work_one=answer)
    assert report.passed, report.render()


def test_a_correct_booking_worker_passes_other_seeds_too():
    report = run_check("12.booking_worker", work_one=through_fail_with_retry_after, seed=4242)
    assert report.passed, report.render()


def test_the_reference_is_the_solutions_work_one():
    """The check compares with booking_worker.reference: the solution's answer must be the same code."""
    import ast
    import inspect
    import textwrap

    from course.grading import notebooks
    from course.grading.checks.lab12.booking_worker import reference

    def body(source: str) -> str:
        [function] = [node for node in ast.parse(textwrap.dedent(source)).body if isinstance(node, ast.FunctionDef)]
        statements = function.body[1:] if isinstance(function.body[0], ast.Expr) else function.body  # no docstring
        return "\n".join(ast.dump(statement) for statement in statements)

    cells = notebooks.exercise_cells(notebooks.ROOT / "solutions" / "12_capstone_stayhub.ipynb")
    assert body(cells["12.booking_worker"]) == body(inspect.getsource(reference))

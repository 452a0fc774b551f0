"""Lab 03's checks fail plausible wrong claims, for the reason a learner needs to hear.

Each wrong answer is a claim a learner could well write. The test runs the real check on it (a real
PostgreSQL, ten connections at once) and asserts which checks fail, and that the right answer passes.
"""

from course.grading import run_check

from .wrong_answers import assert_fails_with, failed


READY = "run_at <= now() AND (locked_until IS NULL OR locked_until < now())"
MARK = "locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1"


def claim_sql(*, ready=READY, order="ORDER BY run_at", lock="FOR UPDATE SKIP LOCKED", mark=MARK, limit="1",
              match="id ="):
    return f"""
        UPDATE jobs SET {mark}
        WHERE {match} (SELECT id FROM jobs WHERE {ready} {order} LIMIT {limit} {lock})
        RETURNING id, type, payload"""


def claim_with(**parts):
    statement = claim_sql(**parts)

    def claim(conn, lease_s):
        return conn.execute(statement, {"lease_s": lease_s}).fetchone()

    return claim


def test_the_model_claim_passes():
    report = run_check("03.claim", claim=claim_with())
    assert report.passed, report.render()


# -- 03.claim ----------------------------------------------------------------------------------------


def test_plain_for_update_waits_for_the_row_another_worker_is_claiming():
    report = run_check("03.claim", claim=claim_with(lock="FOR UPDATE"))
    assert failed(report) == ["does not wait for a row another worker is claiming: takes the next one"], \
        report.render()
    assert "lock_timeout" in report.render()


def test_a_claim_without_any_lock_hands_jobs_to_two_workers():
    report = run_check("03.claim", claim=claim_with(lock=""))
    assert_fails_with(report, "no job is claimed twice")
    assert "was returned to connections" in report.render()


def read_then_mark(conn, lease_s):
    """The obvious two steps, each committed on its own."""
    row = conn.execute(f"SELECT id, type, payload FROM jobs WHERE {READY} ORDER BY run_at LIMIT 1").fetchone()
    if row is not None:
        conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                     "WHERE id = %s", [lease_s, row[0]])
    return row


def test_read_then_mark_in_two_statements_hands_jobs_to_two_workers():
    assert_fails_with(run_check("03.claim", claim=read_then_mark), "no job is claimed twice")


def test_a_claim_that_ignores_locked_until_takes_a_leased_job_again():
    report = run_check("03.claim", claim=claim_with(ready="run_at <= now()"))
    assert_fails_with(report, "passes over a job whose lease has not run out")


def test_a_claim_that_ignores_run_at_takes_a_job_scheduled_for_later():
    report = run_check("03.claim", claim=claim_with(ready="(locked_until IS NULL OR locked_until < now())"))
    assert_fails_with(report, "leaves a job whose run_at is still in the future")


def test_a_claim_that_never_reclaims_an_expired_lease_strands_a_crashed_workers_job():
    report = run_check("03.claim", claim=claim_with(ready="run_at <= now() AND locked_until IS NULL"))
    assert_fails_with(report, "claims again a job whose lease ran out")


def test_oldest_by_id_is_not_oldest_by_run_at():
    assert_fails_with(run_check("03.claim", claim=claim_with(order="ORDER BY id")), "takes the oldest visible job")


def test_a_lease_written_as_30_seconds_ignores_lease_s():
    mark = "locked_until = now() + interval '30 seconds', attempts = attempts + 1"
    statement = claim_sql(mark=mark)

    def claim(conn, lease_s):
        return conn.execute(statement).fetchone()

    report = run_check("03.claim", claim=claim)
    assert_fails_with(report, "hides the job for lease_s seconds")
    assert "45 s from now" in report.render()


def test_a_claim_that_forgets_attempts():
    report = run_check("03.claim", claim=claim_with(mark="locked_until = now() + make_interval(secs => %(lease_s)s)"))
    assert_fails_with(report, "counts the attempt", "the second claim counts a second attempt")


def test_a_claim_that_returns_a_list_instead_of_none_on_an_empty_queue():
    statement = claim_sql()

    def claim(conn, lease_s):
        return conn.execute(statement, {"lease_s": lease_s}).fetchall()

    report = run_check("03.claim", claim=claim)
    assert failed(report) == ["returns None when no job is waiting"], report.render()


# -- 03.claim_batch ------------------------------------------------------------------------------------


def batch_with(**parts):
    parts.setdefault("match", "id IN")
    parts.setdefault("limit", "%(limit)s")
    statement = claim_sql(**parts)

    def claim_batch(conn, limit, lease_s):
        return conn.execute(statement, {"lease_s": lease_s, "limit": limit}).fetchall()

    return claim_batch


def test_the_model_batch_claim_passes():
    report = run_check("03.claim_batch", claim_batch=batch_with())
    assert report.passed, report.render()


def test_a_limit_applied_in_python_leases_jobs_nobody_runs():
    statement = claim_sql(match="id IN", limit="ALL")

    def claim_batch(conn, limit, lease_s):
        return conn.execute(statement, {"lease_s": lease_s}).fetchall()[:limit]

    report = run_check("03.claim_batch", claim_batch=claim_batch)
    assert_fails_with(report, "claims no more jobs than it returns")
    assert "put the LIMIT inside" in report.render()


def test_id_equals_a_subquery_of_several_rows_raises():
    report = run_check("03.claim_batch", claim_batch=batch_with(match="id ="))
    assert not report.passed and "CardinalityViolation" in report.render(), report.render()


def test_a_batch_claim_without_skip_locked_waits():
    report = run_check("03.claim_batch", claim_batch=batch_with(lock="FOR UPDATE"))
    assert failed(report) == ["does not wait for a row another worker is claiming: takes the next ones"], \
        report.render()


def test_a_batch_claim_without_any_lock_hands_jobs_to_two_workers():
    assert_fails_with(run_check("03.claim_batch", claim_batch=batch_with(lock="")), "no job is claimed twice")


def test_a_batch_claim_that_ignores_leases():
    report = run_check("03.claim_batch", claim_batch=batch_with(ready="run_at <= now()"))
    assert_fails_with(report, "the next batch skips leased jobs")


# -- 03.quiz -----------------------------------------------------------------------------------------------


def test_the_quiz_fails_a_wrong_letter_without_giving_the_answer():
    report = run_check("03.quiz", q1="b", q2="a", q3="a", q4="b", q5="c")
    assert failed(report) == ["q2: a claim with no row lock"], report.render()
    assert "'c'" not in report.render()


# -- the table the check builds is the one the lab shows ------------------------------------------------


def test_the_check_builds_the_table_the_lab_shows():
    import ast

    import nbformat

    from course.grading import notebooks
    from course.grading.checks.lab03 import JOBS_TABLE

    notebook = nbformat.read(notebooks.ROOT / "solutions" / "03_postgres_queue.ipynb", as_version=4)
    [cell] = [c for c in notebook.cells if c.cell_type == "code" and c.source.startswith("JOBS_TABLE = ")]
    shown = ast.literal_eval(ast.parse(cell.source).body[0].value)
    assert shown.split() == JOBS_TABLE.split()


# -- boundaries: a job due exactly now (found by the mutation sweep: run_at < now() passed) ----------------

NOT_DUE_AT_THE_BOUNDARY = """
    UPDATE jobs
    SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
    WHERE id {match} (
        SELECT id FROM jobs
        WHERE run_at < now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY run_at
        LIMIT {limit}
        FOR UPDATE SKIP LOCKED
    )
    RETURNING id, type, payload"""


def claim_strictly_before_now(conn, lease_s):
    return conn.execute(NOT_DUE_AT_THE_BOUNDARY.format(match="=", limit="1"), [lease_s]).fetchone()


def claim_batch_strictly_before_now(conn, limit, lease_s):
    return conn.execute(NOT_DUE_AT_THE_BOUNDARY.format(match="IN", limit="%s"), [lease_s, limit]).fetchall()


def test_a_claim_that_leaves_a_job_due_exactly_now_fails():
    assert_fails_with(run_check("03.claim", claim=claim_strictly_before_now), "a job due exactly now")


def test_a_batch_claim_that_leaves_a_job_due_exactly_now_fails():
    assert_fails_with(run_check("03.claim_batch", claim_batch=claim_batch_strictly_before_now), "a job due exactly now")


# -- 03.claim_batch: one wrong answer per rule (its rules in course/grading/labs.toml) ----------------------


def test_a_batch_claim_that_returns_none_on_an_empty_queue():
    statement = claim_sql(match="id IN", limit="%(limit)s")

    def claim_batch(conn, limit, lease_s):
        rows = conn.execute(statement, {"lease_s": lease_s, "limit": limit}).fetchall()
        return rows or None

    assert_fails_with(run_check("03.claim_batch", claim_batch=claim_batch), "returns an empty list when no job is waiting")


def test_a_batch_oldest_by_id_is_not_oldest_by_run_at():
    report = run_check("03.claim_batch", claim_batch=batch_with(order="ORDER BY id"))
    assert_fails_with(report, "returns at most `limit` jobs, the oldest ones")


def test_a_batch_claim_that_forgets_attempts():
    report = run_check("03.claim_batch",
                       claim_batch=batch_with(mark="locked_until = now() + make_interval(secs => %(lease_s)s)"))
    assert_fails_with(report, "each claimed job: attempts = 1 and locked_until")


def test_a_claim_that_returns_only_the_id_is_not_the_row_asked_for():
    statement = claim_sql().replace("RETURNING id, type, payload", "RETURNING id")

    def claim(conn, lease_s):
        row = conn.execute(statement, {"lease_s": lease_s}).fetchone()
        return None if row is None else row[0]

    assert failed(run_check("03.claim", claim=claim)) == ["returns the claimed job as a row (id, type, payload)"]


def test_a_batch_claim_that_returns_only_the_ids_is_not_the_rows_asked_for():
    statement = claim_sql(match="id IN", limit="%(limit)s").replace("RETURNING id, type, payload", "RETURNING id")

    def claim_batch(conn, limit, lease_s):
        return [job_id for (job_id,) in conn.execute(statement, {"lease_s": lease_s, "limit": limit})]

    report = run_check("03.claim_batch", claim_batch=claim_batch)
    assert failed(report) == ["returns a list of rows (id, type, payload)"], report.render()


def locked_read_then_mark(conn, lease_s):
    """A row lock, in autocommit: the SELECT commits (and its lock ends) before the UPDATE runs."""
    row = conn.execute(f"SELECT id, type, payload FROM jobs WHERE {READY} ORDER BY run_at LIMIT 1 "
                       "FOR UPDATE SKIP LOCKED").fetchone()
    if row is not None:
        conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                     "WHERE id = %s", [lease_s, row[0]])
    return row


def test_a_row_lock_in_its_own_autocommit_select_is_told_the_lock_ended_at_its_commit():
    """Not "the claim needs a row lock": it had one, which ended when the SELECT's transaction committed."""
    report = run_check("03.claim", claim=locked_read_then_mark)
    assert_fails_with(report, "no job is claimed twice")
    text = report.render()
    assert "the lock ended when that SELECT committed" in text and "needs a row lock" not in text, text


def test_a_read_without_a_lock_is_still_told_it_needs_one():
    text = run_check("03.claim", claim=read_then_mark).render()
    assert "the claim needs a row lock" in text and "the lock ended" not in text, text

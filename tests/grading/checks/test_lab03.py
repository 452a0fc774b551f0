"""Lab 03's checks fail plausible wrong claims, for the reason a learner needs to hear.

Each wrong answer is a claim a learner could well write. The test runs the real check on it (a real
PostgreSQL; the answer and the reference on the same generated tables, then beside other workers) and
asserts exactly which checks fail: the rule it breaks, and no other.
"""

import pytest

from course.grading import run_check

from .wrong_answers import assert_fails_with, failed, fails_exactly


READY = "run_at <= now() AND (locked_until IS NULL OR locked_until < now())"
MARK = "locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1"


def claim_sql(*, ready=READY, order="ORDER BY run_at", lock="FOR UPDATE SKIP LOCKED", mark=MARK, limit="1",
              match="id = ({})", returning="id, type, payload"):
    chosen = f"SELECT id FROM jobs WHERE {ready} {order} LIMIT {limit} {lock}"
    return f"""
        UPDATE jobs SET {mark}
        WHERE {match.format(chosen)}
        RETURNING {returning}"""


def claim_with(name, **parts):
    statement = claim_sql(**parts)

    def claim(conn, lease_s):
        return conn.execute(statement, {"lease_s": lease_s}).fetchone()

    claim.__name__ = name
    return claim


def test_the_model_claim_passes():
    report = run_check("03.claim", claim=claim_with("model"))
    assert report.passed, report.render()


# -- 03.claim: one wrong answer per row, and the checks it must fail (only those) ------------------------------


def returns_only_the_id(conn, lease_s):
    row = conn.execute(claim_sql(returning="id"), {"lease_s": lease_s}).fetchone()
    return None if row is None else row[0]


def a_list_when_empty(conn, lease_s):
    return conn.execute(claim_sql(), {"lease_s": lease_s}).fetchall()


def lease_of_30_seconds(conn, lease_s):
    return conn.execute(claim_sql(mark="locked_until = now() + interval '30 seconds', attempts = attempts + 1")
                        ).fetchone()


def whole_seconds_lease(conn, lease_s):
    """lease_s as a whole number of seconds: a lease of 2.5 s becomes 2 s."""
    mark = f"locked_until = now() + interval '{int(lease_s)} seconds', attempts = attempts + 1"
    return conn.execute(claim_sql(mark=mark)).fetchone()


def share_lock_in_a_transaction(conn, lease_s):
    """Two statements held together by a transaction, but FOR SHARE lets a second worker lock the row too."""
    with conn.transaction():
        row = conn.execute(f"SELECT id, type, payload FROM jobs WHERE {READY} ORDER BY run_at LIMIT 1 "
                           "FOR SHARE SKIP LOCKED").fetchone()
        if row is not None:
            conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                         "WHERE id = %s", [lease_s, row[0]])
    return row


def serializable_without_retries(conn, lease_s):
    """Right alone (and it cannot run inside the check's own transaction); beside another worker it fails."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        return read_then_mark(conn, lease_s)


def locks_one_then_orders(conn, lease_s):
    """ORDER BY outside the sub-select that locks one row: it sorts a single, arbitrary job."""
    return conn.execute(f"""
        UPDATE jobs SET {MARK}
        WHERE id = (SELECT id FROM (SELECT id, run_at FROM jobs WHERE {READY} LIMIT 1 FOR UPDATE SKIP LOCKED) one
                    ORDER BY run_at)
        RETURNING id, type, payload""", {"lease_s": lease_s}).fetchone()


def marks_every_job_of_its_type(conn, lease_s):
    row = conn.execute(claim_sql(), {"lease_s": lease_s}).fetchone()
    if row is not None:
        conn.execute(f"UPDATE jobs SET locked_until = now() + make_interval(secs => %s) WHERE type = %s AND {READY}",
                     [lease_s, row[1]])
    return row


def chosen_in_python(retries: int):
    """Read the ready jobs without a lock, pick the oldest in Python, then mark it only if it is still free
    (compare and set), trying again `retries` times: another worker's claim between the two makes it miss
    a ready job, or, retried, wait for that worker's row lock."""
    def claim(conn, lease_s):
        for _ in range(retries):
            ready = conn.execute(f"SELECT id, run_at FROM jobs WHERE {READY}").fetchall()
            if not ready:
                return None
            oldest = min(ready, key=lambda row: row[1])[0]
            row = conn.execute(f"UPDATE jobs SET {MARK} WHERE id = %(id)s AND (locked_until IS NULL OR "
                               "locked_until < now()) RETURNING id, type, payload",
                               {"lease_s": lease_s, "id": oldest}).fetchone()
            if row is not None:
                return row
        return None
    return claim


BESIDE_OTHER_WORKERS = ["no job is claimed twice", "does not wait for a row another worker",
                        "takes the oldest ready job first", "returns up to `limit` jobs", "claims no more jobs",
                        "changes nothing but"]

WRONG_CLAIMS = {  # the wrong answer, the checks it must fail, and those it may fail too
    "oldest_by_id": (claim_with("oldest_by_id", order="ORDER BY id"), ["takes the oldest ready job first"]),
    "newest_first": (claim_with("newest_first", order="ORDER BY run_at DESC"), ["takes the oldest ready job first"]),
    "only_receipts": (claim_with("only_receipts", ready=READY + " AND type = 'send_receipt'"),
                      ["takes the oldest ready job first"]),
    "ignores_run_at": (claim_with("ignores_run_at", ready="(locked_until IS NULL OR locked_until < now())"),
                       ["leaves a job whose run_at is still in the future"]),
    "strictly_before_now": (claim_with("strictly_before_now", ready=READY.replace("run_at <=", "run_at <")),
                            ["a job due exactly now"]),
    "ignores_locked_until": (claim_with("ignores_locked_until", ready="run_at <= now()"),
                             ["passes over a job whose lease has not run out", "no job is claimed twice"]),
    "never_reclaims": (claim_with("never_reclaims", ready="run_at <= now() AND locked_until IS NULL"),
                       ["claims again a job whose lease ran out"]),
    "lease_of_30_seconds": (lease_of_30_seconds, ["hides the job for lease_s seconds"]),
    "whole_seconds_lease": (whole_seconds_lease, ["hides the job for lease_s seconds"]),
    "forgets_attempts": (claim_with("forgets_attempts", mark=MARK.replace(", attempts = attempts + 1", "")),
                         ["counts the attempt"]),
    "attempts_set_to_one": (claim_with("attempts_set_to_one", mark=MARK.replace("attempts + 1", "1")),
                            ["counts the attempt"]),
    "moves_run_at_too": (claim_with("moves_run_at_too", mark=MARK + ", run_at = now()"),
                         ["changes nothing but the claimed job's"]),
    "returns_only_the_id": (returns_only_the_id, ["returns the claimed job as a row (id, type, payload)"]),
    "a_list_when_empty": (a_list_when_empty, ["returns None when no job is ready",  # [] and [row]: both wrong
                                              "returns the claimed job as a row (id, type, payload)"]),
    # found by the first red-team round (issue 22): jobs half a second from now, and errors under concurrency
    "half_a_second_early": (claim_with("half_a_second_early", ready=READY.replace("run_at <= now()",
                                                                               "run_at <= now() + interval '0.5 s'")),
                            ["leaves a job whose run_at is still in the future"]),
    "a_second_of_grace": (claim_with("a_second_of_grace", ready=READY.replace("locked_until < now()",
                                                                           "locked_until < now() + interval '1 s'")),
                          ["passes over a job whose lease has not run out"]),
    "nowait": (claim_with("nowait", lock="FOR UPDATE NOWAIT"), ["does not wait for a row another worker is claiming"]),
    "a_share_lock_in_a_transaction": (share_lock_in_a_transaction, ["does not wait for a row another worker"]),
    "serializable_without_retries": (serializable_without_retries, ["does not wait for a row another worker"]),
    # found by the second round: order, not the lease, decides; and a lock taken before the order
    "fresh_jobs_before_crashed_ones": (claim_with("fresh_jobs_before_crashed_ones",
                                                  order="ORDER BY locked_until NULLS FIRST, run_at"),
                                       ["takes the oldest ready job first"]),
    "locks_one_then_orders": (locks_one_then_orders, ["takes the oldest ready job first"]),
    "due_a_second_late": (claim_with("due_a_second_late", ready=READY.replace("run_at <= now()",
                                                                           "run_at < now() - interval '1 s'")),
                          ["takes the oldest ready job first"]),
    "marks_every_job_of_its_type": (marks_every_job_of_its_type, ["changes nothing but the claimed job's"]),
    "ready_when_the_lease_ran_out": (claim_with("ready_when_the_lease_ran_out",
                                                ready="coalesce(locked_until, run_at) <= now()"),
                                     ["leaves a job whose run_at is still in the future"]),
    "the_course_queues_lease_column": (claim_with("the_course_queues_lease_column",
                                                  mark=MARK.replace("locked_until =", "run_at =")),
                                       ["hides the job for lease_s seconds"], ["changes nothing but"]),
    "payload_as_text": (claim_with("payload_as_text", returning="id, type, payload::text"),
                        ["returns the claimed job as a row (id, type, payload)"]),
    "and_or_without_brackets": (claim_with("and_or_without_brackets",
                                           match="id = ({}) AND locked_until IS NULL OR locked_until < now()"),
                                ["takes the oldest ready job first"],
                                ["leaves a job whose run_at is still in the future", "changes nothing but"]),
    "chosen_in_python_then_compared_and_set": (chosen_in_python(retries=1), ["takes the oldest ready job first"]),
    "compared_and_set_until_it_works": (chosen_in_python(retries=20), ["does not wait for a row another worker"]),
    # An IN (...) answer's races depend on the table's physical order (page pruning, other sessions' open
    # transactions): it always fails, for its cause, and may fail more beside other workers.
    "one_chosen_with_in": (claim_with("one_chosen_with_in", match="id IN ({})"),
                           ["changes nothing but the claimed job's"], BESIDE_OTHER_WORKERS),
    "lease_rounded_to_seconds": (claim_with("lease_rounded_to_seconds",
                                            mark=MARK.replace("%(lease_s)s)", "%(lease_s)s::int)")),
                                 ["hides the job for lease_s seconds"]),
}


@pytest.mark.parametrize("case", WRONG_CLAIMS)
def test_wrong_claims_fail(case):
    answer, *reasons = WRONG_CLAIMS[case]
    report = run_check("03.claim", claim=answer)
    assert fails_exactly(report, *reasons), report.render()


# -- 03.claim beside other workers: the cause named, not only the symptom ----------------------------------------


def test_plain_for_update_waits_for_the_row_another_worker_is_claiming():
    report = run_check("03.claim", claim=claim_with("plain", lock="FOR UPDATE"))
    assert failed(report) == ["does not wait for a row another worker is claiming"], report.render()
    assert "waits for a job another session has locked" in report.render()


def test_a_claim_without_any_lock_hands_jobs_to_two_workers():
    report = run_check("03.claim", claim=claim_with("unlocked", lock=""))
    assert failed(report) == ["no job is claimed twice, however other workers' claims fall between its steps"], \
        report.render()
    assert "chooses its job without locking it" in report.render()


def test_a_key_share_lock_is_told_it_is_too_weak_not_missing():
    """Issue 22: FOR KEY SHARE SKIP LOCKED was told "the claim needs a row lock". It has one, too weak."""
    report = run_check("03.claim", claim=claim_with("key_share", lock="FOR KEY SHARE SKIP LOCKED"))
    assert_fails_with(report, "no job is claimed twice")
    text = report.render()
    assert "does lock the job it chooses" in text and "without locking" not in text, text


def test_a_share_lock_lets_another_worker_in_and_then_waits():
    report = run_check("03.claim", claim=claim_with("share", lock="FOR SHARE SKIP LOCKED"))
    assert failed(report) == ["does not wait for a row another worker is claiming"], report.render()
    assert "two sessions can hold at once" in report.render()


def read_then_mark(conn, lease_s):
    """The obvious two steps, each committed on its own."""
    row = conn.execute(f"SELECT id, type, payload FROM jobs WHERE {READY} ORDER BY run_at LIMIT 1").fetchone()
    if row is not None:
        conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                     "WHERE id = %s", [lease_s, row[0]])
    return row


def locked_read_then_mark(conn, lease_s):
    """A row lock, in autocommit: the SELECT commits (and its lock ends) before the UPDATE runs."""
    row = conn.execute(f"SELECT id, type, payload FROM jobs WHERE {READY} ORDER BY run_at LIMIT 1 "
                       "FOR UPDATE SKIP LOCKED").fetchone()
    if row is not None:
        conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1 "
                     "WHERE id = %s", [lease_s, row[0]])
    return row


@pytest.mark.parametrize("claim", [read_then_mark, locked_read_then_mark])
def test_read_then_mark_in_two_statements_hands_jobs_to_two_workers(claim):
    report = run_check("03.claim", claim=claim)
    assert failed(report) == ["no job is claimed twice, however other workers' claims fall between its steps"], \
        report.render()
    text = report.render()
    assert "took the job in the moment between your statements" in text and "just before your statement 2" in text


# -- 03.claim_batch --------------------------------------------------------------------------------------------


def batch_with(name, **parts):
    parts.setdefault("match", "id = ANY(ARRAY({}))")
    parts.setdefault("limit", "%(limit)s")
    statement = claim_sql(**parts)

    def claim_batch(conn, limit, lease_s):
        return conn.execute(statement, {"lease_s": lease_s, "limit": limit}).fetchall()

    claim_batch.__name__ = name
    return claim_batch


def test_the_model_batch_claim_passes():
    report = run_check("03.claim_batch", claim_batch=batch_with("model"))
    assert report.passed, report.render()


def none_when_empty(conn, limit, lease_s):
    return batch_with("model")(conn, limit, lease_s) or None


def batch_of_ids(conn, limit, lease_s):
    return [row[0] for row in batch_with("ids", returning="id")(conn, limit, lease_s)]


def counts_one_attempt_per_batch(conn, limit, lease_s):
    leases_only = batch_with("leases_only", mark="locked_until = now() + make_interval(secs => %(lease_s)s)")
    rows = leases_only(conn, limit, lease_s)
    if rows:
        conn.execute("UPDATE jobs SET attempts = attempts + 1 WHERE id = %s", [min(row[0] for row in rows)])
    return rows


def chosen_then_marked_in_two_commits(conn, limit, lease_s):
    ids = [row[0] for row in conn.execute(f"SELECT id FROM jobs WHERE {READY} ORDER BY run_at LIMIT %s "
                                          "FOR UPDATE SKIP LOCKED", [limit])]
    return conn.execute(f"UPDATE jobs SET {MARK} WHERE id = ANY(%(ids)s) RETURNING id, type, payload",
                        {"lease_s": lease_s, "ids": ids}).fetchall()


WRONG_BATCHES = {  # the wrong answer, and the checks it must fail (those only)
    "batch_oldest_by_id": (batch_with("batch_oldest_by_id", order="ORDER BY id"),
                           ["returns up to `limit` jobs, the oldest ready ones"]),
    "limit_of_ten": (batch_with("limit_of_ten", limit="10"), ["returns up to `limit` jobs, the oldest ready ones"]),
    "one_more_than_the_limit": (batch_with("one_more_than_the_limit", limit="%(limit)s + 1"),
                                ["returns up to `limit` jobs, the oldest ready ones"]),
    "id_equals_a_subquery": (batch_with("id_equals_a_subquery", match="id = ({})"),
                             ["returns up to `limit` jobs, the oldest ready ones"]),
    "batch_ignores_run_at": (batch_with("batch_ignores_run_at", ready="(locked_until IS NULL OR locked_until < now())"),
                             ["leaves a job whose run_at is still in the future"]),
    "batch_strictly_before_now": (batch_with("batch_strictly_before_now", ready=READY.replace("run_at <=", "run_at <")),
                                  ["a job due exactly now"]),
    "batch_ignores_leases": (batch_with("batch_ignores_leases", ready="run_at <= now()"),
                             ["passes over a job whose lease has not run out", "no job is claimed twice"]),
    "batch_never_reclaims": (batch_with("batch_never_reclaims", ready="run_at <= now() AND locked_until IS NULL"),
                             ["claims again a job whose lease ran out"]),
    "batch_forgets_attempts": (batch_with("batch_forgets_attempts",
                                          mark="locked_until = now() + make_interval(secs => %(lease_s)s)"),
                               ["each claimed job: attempts + 1 and locked_until"]),
    "batch_without_skip_locked": (batch_with("batch_without_skip_locked", lock="FOR UPDATE"),
                                  ["does not wait for a row another worker is claiming"]),
    "batch_without_any_lock": (batch_with("batch_without_any_lock", lock=""), ["no job is claimed twice"]),
    "batch_of_ids": (batch_of_ids, ["returns a list of rows (id, type, payload)"]),
    "none_when_empty": (none_when_empty, ["returns an empty list when no job is ready"]),
    # found by the first red-team round: a limit of its own, met only with more than ten jobs ready
    "at_most_ten": (batch_with("at_most_ten", limit="least(%(limit)s, 10)"),
                    ["returns up to `limit` jobs, the oldest ready ones"]),
    "counts_one_attempt_per_batch": (counts_one_attempt_per_batch, ["each claimed job: attempts + 1"]),
    "newest_batch": (batch_with("newest_batch", order="ORDER BY run_at DESC"),
                     ["returns up to `limit` jobs, the oldest ready ones"]),
    "chosen_then_marked_in_two_commits": (chosen_then_marked_in_two_commits, ["no job is claimed twice"]),
    # found by a false fail of the reference itself: an IN (...) sub-select may run once per row scanned
    "chosen_with_in": (batch_with("chosen_with_in", match="id IN ({})"),
                       ["returns up to `limit` jobs, the oldest ready ones"], BESIDE_OTHER_WORKERS),
}


@pytest.mark.parametrize("case", WRONG_BATCHES)
def test_wrong_batches_fail(case):
    answer, *reasons = WRONG_BATCHES[case]
    report = run_check("03.claim_batch", claim_batch=answer)
    assert fails_exactly(report, *reasons), report.render()


@pytest.mark.parametrize("exercise, answer", [
    ("03.claim", {"claim": claim_with("one_chosen_with_in", match="id IN ({})")}),
    ("03.claim_batch", {"claim_batch": batch_with("chosen_with_in", match="id IN ({})")})])
def test_a_sub_select_run_once_per_row_is_named(exercise, answer):
    """Every time, not when autovacuum happens to have analyzed the table: the check's table has the
    statistics a queue's table has once its done jobs are deleted and it is analyzed. (Which other checks
    fail beside it depends on the table's physical order, so only the cause is asserted.)"""
    for _ in range(2):
        report = run_check(exercise, **answer)
        assert not report.passed and "may run that sub-select again for every row it scans" in report.render()


def joined_pick(conn, limit, lease_s):
    """Red team (issue 22), written as a correct answer: a derived table joined by UPDATE ... FROM is re-scanned
    like an IN (...) sub-select, and leases more than `limit`."""
    rows = conn.execute("""
        UPDATE jobs AS j SET attempts = j.attempts + 1, locked_until = now() + %(s)s * interval '1 second'
        FROM (SELECT id FROM jobs WHERE run_at <= now() AND coalesce(locked_until, '-infinity') < now()
              ORDER BY run_at LIMIT %(n)s FOR UPDATE SKIP LOCKED) AS picked
        WHERE j.id = picked.id
        RETURNING j.id, j.type, j.payload""", {"s": lease_s, "n": limit}).fetchall()
    return [tuple(row) for row in rows]


def test_a_joined_sub_select_is_told_it_runs_again_for_every_row():
    report = run_check("03.claim_batch", claim_batch=joined_pick)
    assert not report.passed and "UPDATE jobs ... FROM (SELECT ...) AS pick" in report.render(), report.render()


def test_id_equals_a_subquery_of_several_rows_is_told_what_it_raised():
    text = run_check("03.claim_batch", claim_batch=batch_with("id_equals", match="id = ({})")).render()
    assert "yours raised CardinalityViolation" in text, text


def test_a_limit_applied_in_python_leases_jobs_nobody_runs():
    statement = claim_sql(match="id = ANY(ARRAY({}))", limit="ALL")

    def claim_batch(conn, limit, lease_s):
        return conn.execute(statement, {"lease_s": lease_s}).fetchall()[:limit]

    report = run_check("03.claim_batch", claim_batch=claim_batch)
    assert_fails_with(report, "claims no more jobs than it returns")
    assert "put the LIMIT inside" in report.render()


def test_a_batch_of_single_claims_is_not_one_statement():
    """Each claim is right; the batch is not one set chosen at one instant: another worker's claim falls
    between them. The statement asks for one statement."""
    single = claim_sql()

    def claim_batch(conn, limit, lease_s):
        rows = []
        while len(rows) < limit and (row := conn.execute(single, {"lease_s": lease_s}).fetchone()):
            rows.append(row)
        return rows

    report = run_check("03.claim_batch", claim_batch=claim_batch)
    assert failed(report) == ["claims no more jobs than it returns, and changes nothing else"], report.render()
    assert "fell between your statements" in report.render()


# -- the smallest example, and the seed that replays it ------------------------------------------------------------


def test_a_failure_is_shown_on_the_smallest_table_that_shows_it():
    text = run_check("03.claim", claim=claim_with("only_receipts", ready=READY + " AND type = 'send_receipt'")).render()
    example = next(line for line in text.splitlines() if "smallest failing example" in line)
    jobs = example.split("example: ")[1].split(";")[0]  # one job, of a type other than the demo's
    assert jobs.startswith("job 1 (") and jobs.count("(") == 1 and "send_receipt" not in jobs, text


def test_the_smallest_table_can_be_an_empty_one():
    text = run_check("03.claim", claim=a_list_when_empty).render()
    assert "smallest failing example: an empty jobs table; claim(conn, 30)" in text, text


def test_a_race_replays_the_same_failure_every_time():
    texts = {run_check("03.claim", claim=claim_with("key_share", lock="FOR KEY SHARE SKIP LOCKED")).render()
             for _ in range(3)}
    assert len(texts) == 1, "\n\n".join(texts)


def test_a_seed_replays_the_same_failure_every_time():
    answer = claim_with("oldest_by_id", order="ORDER BY id")
    runs = {run_check("03.claim", claim=answer, seed=11).render() for _ in range(3)}
    assert len(runs) == 1 and "seed=11" in runs.pop()


# -- 03.quiz -----------------------------------------------------------------------------------------------


def test_the_quiz_fails_a_wrong_letter_without_giving_the_answer():
    report = run_check("03.quiz", q1="a", q2="a", q3="b", q4="b", q5="c", q6="a", q7="c")
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


def test_the_reference_claims_are_the_solutions_statements():
    """The checks compare with REFERENCE_CLAIM and REFERENCE_BATCH: the solution must say the same."""
    from course.grading import notebooks
    from course.grading.checks.lab03.judge import REFERENCE_BATCH, REFERENCE_CLAIM

    def words(text):
        return " ".join(text.replace("(", " ( ").replace(")", " ) ").split())

    cells = notebooks.exercise_cells(notebooks.ROOT / "solutions" / "03_postgres_queue.ipynb")
    for exercise, reference in (("03.claim", REFERENCE_CLAIM), ("03.claim_batch", REFERENCE_BATCH)):
        solution = words(cells[exercise])
        for clause in ("FOR UPDATE SKIP LOCKED", "ORDER BY run_at", "attempts = attempts + 1",
                       "run_at <= now() AND ( locked_until IS NULL OR locked_until < now() )"):
            assert words(clause) in words(reference) and words(clause) in solution, (exercise, clause)



# -- a stub scores nothing it did not show (red team f2-f2b) -----------------------------------------------------


@pytest.mark.parametrize("exercise, answer", [("03.claim", "claim"), ("03.claim_batch", "claim_batch")])
@pytest.mark.parametrize("returns", [None, [], ()], ids=["None", "empty list", "empty tuple"])
def test_a_claim_that_does_nothing_passes_no_check(exercise, answer, returns):
    """A claim that claims nothing returns None (or []) when no job is ready, as the rules ask: a `return None`
    stub scored 2 of 12 on 03.claim. Until the answer has returned a job, those rules are not judged."""
    report = run_check(exercise, **{answer: lambda *a, **k: returns})
    assert not any(r.passed for r in report.results), report.render()
    assert failed(report), report.render()


def test_a_claim_that_returns_jobs_is_still_judged_on_what_it_returns_when_empty():
    """The rule comes back once the answer has claimed something: [] for nothing fails, as before."""
    report = run_check("03.claim", claim=a_list_when_empty)
    assert "returns None when no job is ready" in failed(report), report.render()

"""Lab 03's checks pass correct claims written unlike the reference (issue 22: a check that fails a correct
answer is as wrong as one that passes a wrong one): other SQL, helpers, aliases, other row shapes, and
the answer the hints spell out. Each runs the real check, beside other workers too.
"""

from datetime import datetime, timedelta, timezone

import pytest
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.rows import namedtuple_row as rows_with_names

from course.grading import run_check

# -- 03.claim ---------------------------------------------------------------------------------------------


def hints_spelled_out(conn, lease_s):
    """The three hints, word for word: one UPDATE, a sub-select that chooses and locks, fetchone()."""
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs
                    WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [lease_s]).fetchone()


def a_cte_with_no_key_update(conn, lease_s):
    """A CTE, the weaker lock that still keeps every other claim out, and other spellings of the same rules."""
    return conn.execute("""
        WITH next AS (
            SELECT id FROM jobs
            WHERE run_at <= now() AND coalesce(locked_until, '-infinity') < now()
            ORDER BY run_at, id
            LIMIT 1
            FOR NO KEY UPDATE SKIP LOCKED)
        UPDATE jobs SET attempts = jobs.attempts + 1, locked_until = now() + %s * interval '1 second'
        FROM next WHERE jobs.id = next.id
        RETURNING jobs.id, jobs.type, jobs.payload""", [lease_s]).fetchone()


def _next_ready(conn):
    return conn.execute("SELECT id, type, payload FROM jobs WHERE run_at <= now() "
                        "AND (locked_until IS NULL OR locked_until <= now()) "
                        "ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED").fetchone()


def _mark(conn, job_id, lease_s):
    conn.execute("UPDATE jobs SET locked_until = %s, attempts = attempts + 1 WHERE id = %s",
                 [datetime.now(timezone.utc) + timedelta(seconds=lease_s), job_id])


def two_helpers_in_one_transaction(conn, lease_s):
    """Choose and mark in two statements, held together by one transaction (the row lock lasts until the
    mark); the lease computed by Python's clock; a lease ending this very instant counted as run out."""
    with conn.transaction():
        row = _next_ready(conn)
        if row is not None:
            _mark(conn, row[0], lease_s)
    return row


def a_dict_from_a_composed_statement(conn, lease_s):
    """psycopg.sql, named parameters, every column back, as a dict."""
    statement = sql.SQL("""
        UPDATE {jobs} SET {until} = clock_timestamp() + make_interval(secs => %(lease)s),
                          {attempts} = {attempts} + 1
        WHERE id = (SELECT id FROM {jobs} WHERE NOT (run_at > now()) AND (NOT (locked_until >= now())) IS NOT FALSE
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *""").format(jobs=sql.Identifier("jobs"), until=sql.Identifier("locked_until"),
                               attempts=sql.Identifier("attempts"))
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(statement, {"lease": lease_s}).fetchone()


def named_rows_through_an_alias(conn, lease_s):
    """Rows with names (an aliased import), the lease as text turned into an interval."""
    with conn.cursor(row_factory=rows_with_names) as cursor:
        return cursor.execute("""
            UPDATE jobs SET locked_until = now() + (%s || ' seconds')::interval, attempts = attempts + 1
            WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until < now() OR locked_until IS NULL)
                        ORDER BY run_at ASC LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, type, payload, attempts""", [str(lease_s)]).fetchone()


def marked_then_read_back(conn, lease_s):
    """Mark in one statement, read the row back in another, as a list."""
    claimed = conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), "
                           "attempts = attempts + 1 WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND "
                           "(locked_until IS NULL OR locked_until < now()) ORDER BY run_at, id DESC LIMIT 1 "
                           "FOR UPDATE SKIP LOCKED) RETURNING id", [lease_s]).fetchone()
    if claimed is None:
        return None
    return list(conn.execute("SELECT id, type, payload FROM jobs WHERE id = %s", claimed).fetchone())


def committed_by_hand(conn, lease_s):
    """A commit the autocommit connection does not need (nor attempts its coalesce)."""
    row = conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = coalesce(attempts, 0) + 1
        WHERE id = (SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [lease_s]).fetchone()
    conn.commit()
    return row


def ready_as_one_greatest(conn, lease_s):
    """Ready as one comparison, the lease from the statement's clock, ties broken by locked_until."""
    return conn.execute("""
        UPDATE jobs SET locked_until = statement_timestamp() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE greatest(run_at, coalesce(locked_until, '-infinity')) <= now()
                    ORDER BY run_at, locked_until LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", [lease_s]).fetchone()


@pytest.mark.parametrize("claim", [hints_spelled_out, ready_as_one_greatest, a_cte_with_no_key_update,
                                   two_helpers_in_one_transaction,
                                   a_dict_from_a_composed_statement, named_rows_through_an_alias,
                                   marked_then_read_back, committed_by_hand],
                         ids=lambda answer: answer.__name__)
def test_correct_claims_pass(claim):
    report = run_check("03.claim", claim=claim)
    assert report.passed, report.render()


# -- 03.claim_batch ---------------------------------------------------------------------------------------


def batch_hints_spelled_out(conn, limit, lease_s):
    """The hints: the claim's statement, with = ANY(ARRAY(...)) around a sub-select that takes `limit` rows."""
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs
                             WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                             ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED))
        RETURNING id, type, payload""", [lease_s, limit]).fetchall()


def the_course_queues_shape(conn, limit, lease_s):
    """The course's own claim, on this table: a CTE, = ANY(ARRAY(...)), rows back in the order chosen."""
    return conn.execute("""
        WITH next AS (
            SELECT id, run_at FROM jobs
            WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            ORDER BY run_at, id LIMIT %(limit)s
            FOR UPDATE SKIP LOCKED
        ), claimed AS (
            UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = jobs.attempts + 1
            WHERE jobs.id = ANY(ARRAY(SELECT id FROM next))
            RETURNING jobs.id, jobs.type, jobs.payload
        )
        SELECT claimed.* FROM claimed JOIN next USING (id) ORDER BY next.run_at, next.id""",
                        {"limit": limit, "lease_s": lease_s}).fetchall()


def chosen_then_marked_in_one_transaction(conn, limit, lease_s):
    with conn.transaction():
        ids = [row[0] for row in conn.execute(
            "SELECT id FROM jobs WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now()) "
            "ORDER BY run_at LIMIT %s FOR UPDATE SKIP LOCKED", [limit])]
        if not ids:
            return []
        return conn.execute("UPDATE jobs SET locked_until = now() + make_interval(secs => %s), "
                            "attempts = attempts + 1 WHERE id = ANY(%s) RETURNING id, type, payload",
                            [lease_s, ids]).fetchall()


def dicts_in_a_tuple(conn, limit, lease_s):
    with conn.cursor(row_factory=dict_row) as cursor:
        return tuple(cursor.execute("""
            UPDATE jobs SET attempts = attempts + 1, locked_until = now() + %(lease_s)s * interval '1 second'
            WHERE id = ANY(ARRAY(SELECT id FROM jobs WHERE run_at <= now() AND coalesce(locked_until < now(), true)
                                 ORDER BY run_at LIMIT %(limit)s FOR NO KEY UPDATE SKIP LOCKED))
            RETURNING *""", {"limit": limit, "lease_s": lease_s}).fetchall())


def newest_first_in_the_list(conn, limit, lease_s):
    """The right jobs, listed in another order (the order of a batch is free)."""
    return sorted(batch_hints_spelled_out(conn, limit, lease_s), key=lambda row: -row[0])


def fetch_first_rows(conn, limit, lease_s):
    return conn.execute("""
        UPDATE jobs SET locked_until = now() + make_interval(secs => %(lease_s)s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs
                             WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                             ORDER BY run_at FETCH FIRST %(limit)s ROWS ONLY FOR UPDATE SKIP LOCKED))
        RETURNING id, type, payload""", {"limit": limit, "lease_s": lease_s}).fetchall()


@pytest.mark.parametrize("claim_batch", [batch_hints_spelled_out, fetch_first_rows, the_course_queues_shape,
                                         chosen_then_marked_in_one_transaction, dicts_in_a_tuple,
                                         newest_first_in_the_list],
                         ids=lambda answer: answer.__name__)
def test_correct_batches_pass(claim_batch):
    report = run_check("03.claim_batch", claim_batch=claim_batch)
    assert report.passed, report.render()

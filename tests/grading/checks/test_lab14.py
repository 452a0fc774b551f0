"""Lab 14, the final exam: the solutions' pieces pass it; a queue with one known wrong piece fails it, and
the failure names that piece (its rule's check fails, and the note points to it).

Each wrong piece is a plausible answer to its own lab, written as a learner would and run from source in
a namespace of its own (as `compare` loads a notebook's cell), so the worker processes get it by value.
The exam's verdicts are counts read from the run's history and tables, never timings: they hold at any
load. A run takes 30-90 s on a loaded 2-core machine.
"""

import pytest

from course.grading import run_check
from course.grading.exam import assemble
from course.grading.notebooks import SOLUTIONS, answers_from

from .wrong_answers import assert_fails_with, failed

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

IMPORTS = "from course.core import queue\nfrom course.errors import PermanentError\n"


def piece(source: str, name: str):
    namespace = {"__name__": "__notebook__"}
    exec(compile(IMPORTS + source, f"<wrong {name}>", "exec"), namespace)
    return namespace[name]


def exam_with(**wrong):
    return run_check("14.exam", pieces=assemble(SOLUTIONS, **wrong), seed=14)


CLAIM = """
def claim(conn, lease_s):
    return conn.execute('''
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs
                    WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                    ORDER BY run_at LIMIT 1 {lock})
        RETURNING id, type, payload''', [lease_s]).fetchone()
"""


def test_the_solutions_pieces_pass():
    report = run_check("14.exam", pieces=assemble(SOLUTIONS), seed=14)
    assert report.passed, report.render()


def test_a_missing_piece_is_named_and_nothing_runs(tmp_path):
    report = run_check("14.exam", pieces=assemble(tmp_path))
    assert report.status == "not started" and not report.results, report.render()
    assert "03.claim" in report.render() and "07.route" in report.render()


def test_a_claim_without_skip_locked_fails_naming_03_claim():
    report = exam_with(claim=piece(CLAIM.format(lock="FOR UPDATE"), "claim"))
    assert_fails_with(report, "your 03.claim takes only a free job")
    assert failed(report) == ["your 03.claim takes only a free job, and passes over a locked row"], report.render()
    assert "waited for the row lock" in report.render()


def test_a_claim_without_a_row_lock_fails_naming_03_claim():
    report = exam_with(claim=piece(CLAIM.format(lock=""), "claim"))
    assert_fails_with(report, "your 03.claim takes only a free job")
    assert "-> your 03.claim" in report.render()


def test_a_claim_that_deletes_the_job_loses_it_naming_03_claim():
    claim = piece("def claim(conn, lease_s):\n"
                  "    return conn.execute('DELETE FROM jobs WHERE id = (SELECT id FROM jobs WHERE run_at <= now() '\n"
                  "                        'ORDER BY run_at LIMIT 1 FOR UPDATE SKIP LOCKED) '\n"
                  "                        'RETURNING id, type, payload').fetchone()\n", "claim")
    report = exam_with(claim=claim)
    assert_fails_with(report, "no job lost", "your 03.claim takes only a free job")
    assert "-> your 03.claim" in report.render()


def test_an_ack_by_id_alone_fails_naming_04_fenced_ack():
    ack = piece("def ack(conn, job_id, lease_token):\n"
                "    return conn.execute('DELETE FROM jobs WHERE id = %s', [job_id]).rowcount == 1\n", "ack")
    report = exam_with(ack=ack)
    assert_fails_with(report, "your 04.fenced_ack deletes the job only while the lease is ours")
    assert "-> your 04.fenced_ack" in report.render()


def test_a_heartbeat_by_id_alone_fails_naming_04_heartbeat():
    extend = piece("def extend_lease(conn, job, lease_s):\n"
                   "    return conn.execute('UPDATE jobs SET run_at = now() + make_interval(secs => %s) WHERE id = %s',\n"
                   "                        [lease_s, job.id]).rowcount == 1\n", "extend_lease")
    report = exam_with(extend_lease=extend)
    assert_fails_with(report, "your 04.heartbeat pushes our own lease")
    assert "-> your 04.heartbeat" in report.render()


def test_a_heartbeat_that_does_not_push_the_lease_fails_naming_04_heartbeat():
    extend = piece("def extend_lease(conn, job, lease_s):\n"
                   "    return conn.execute('UPDATE jobs SET run_at = run_at WHERE id = %s AND lease_token = %s',\n"
                   "                        [job.id, job.lease_token]).rowcount == 1\n", "extend_lease")
    report = exam_with(extend_lease=extend)
    assert_fails_with(report, "your 04.heartbeat pushes our own lease")
    assert "-> your 04.heartbeat" in report.render()


def test_a_heartbeat_that_notes_itself_in_the_bookkeeping_columns_passes():
    # 04.heartbeat's statement leaves free whether a beat also sets claimed_by and claimed_at: the exam's
    # table has both, so such a heartbeat is judged by what it does, not by a column the exam lacked.
    extend = piece("def extend_lease(conn, job, lease_s):\n"
                   "    return conn.execute('UPDATE jobs SET run_at = now() + make_interval(secs => %s), '\n"
                   "                        'claimed_by = %s, claimed_at = now() WHERE id = %s AND lease_token = %s',\n"
                   "                        [lease_s, 'me', job.id, job.lease_token]).rowcount == 1\n", "extend_lease")
    report = exam_with(extend_lease=extend)
    assert report.passed, report.render()

def test_a_route_that_never_gives_up_fails_naming_07_route():
    route = piece("from course.core.backoff import backoff_delay\n"
                  "def route(job, error):\n"
                  "    if isinstance(error, PermanentError):\n"
                  "        return queue.Dead('permanent')\n"
                  "    return queue.Retry(backoff_delay(job.attempts))\n", "route")
    report = exam_with(route=route)
    assert_fails_with(report, "your 07.route retries until the last attempt", "poison dead-lettered")
    assert "-> your 07.route" in report.render()


def test_a_route_that_gives_up_at_once_fails_naming_07_route():
    route = piece("def route(job, error):\n"
                  "    return queue.Dead('failed')\n", "route")
    report = exam_with(route=route)
    assert_fails_with(report, "your 07.route retries until the last attempt", "poison dead-lettered")


def test_a_piece_that_raises_is_named():
    route = piece("def route(job, error):\n"
                  "    return {}['retry']\n", "route")
    report = exam_with(route=route)
    assert_fails_with(report, "your 07.route runs without raising")


def test_the_run_cuts_connections_and_restarts_postgres_and_loses_nothing_across_them():
    # the plan's faults all fall before the table empties, so a run that drains has met every one of them
    from course.grading.exam import judge, run
    from course.grading.exam.soak import CUTS, SLOW

    result = run(assemble(SOLUTIONS), seed=26, progress=False)
    verdict = judge(result)
    assert verdict.passed, verdict.render()
    assert result.restarts == 1 and result.cuts >= CUTS, verdict.headline()
    kinds = [e.kind for e in result.events]
    # a slow job's work waits for its freeze; a freeze that fell on an attempt whose connection was just cut made
    # no stale ack and is done again on the next attempt (soak.py's freeze_void): each slow job ends frozen once
    assert result.freezes - kinds.count("freeze_void") == SLOW, verdict.headline()
    assert "reconnected" in kinds and kinds.index("restarting") < kinds.index("restarted"), verdict.headline()


BATCH = """
def claim_batch(conn, limit, lease_s):
    return conn.execute('''
        UPDATE jobs SET locked_until = now() + make_interval(secs => %s), attempts = attempts + 1
        WHERE id = ANY(ARRAY(SELECT id FROM jobs
                             WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                             ORDER BY run_at LIMIT {limit} {lock}))
        RETURNING id, type, payload''', [lease_s{args}]).fetchall()
"""


def test_a_claim_batch_that_ignores_its_limit_fails_naming_03_claim_batch():
    claim_batch = piece(BATCH.format(limit="8", lock="FOR UPDATE SKIP LOCKED", args=""), "claim_batch")
    report = exam_with(claim_batch=claim_batch)
    assert_fails_with(report, "your 03.claim_batch takes only free jobs, no more than its limit")
    assert "more than its limit" in report.render() and "-> your 03.claim_batch" in report.render()


def test_a_claim_batch_without_skip_locked_fails_naming_03_claim_batch():
    claim_batch = piece(BATCH.format(limit="%s", lock="FOR UPDATE", args=", limit"), "claim_batch")
    report = exam_with(claim_batch=claim_batch)
    assert failed(report) == ["your 03.claim_batch takes only free jobs, no more than its limit, and passes over "
                              "a locked row"], report.render()
    assert "waited for the row lock" in report.render()


def test_a_backoff_that_ignores_the_attempt_fails_naming_07_backoff():
    backoff = piece("def backoff(attempt, rng):\n"
                    "    return rng.uniform(0, 1)\n", "backoff")
    report = exam_with(backoff=backoff)
    assert_fails_with(report, "your 07.backoff waits between 0 and min(300, 2^(attempt-1)) s")
    assert "-> your 07.backoff" in report.render() and "does not grow with the attempt" in report.render()


def test_a_backoff_past_its_ceiling_fails_naming_07_backoff():
    backoff = piece("def backoff(attempt, rng):\n"
                    "    return rng.uniform(0, 2 ** attempt)\n", "backoff")
    report = exam_with(backoff=backoff)
    assert_fails_with(report, "your 07.backoff waits between 0 and min(300, 2^(attempt-1)) s")


def test_a_backoff_without_jitter_fails_naming_07_backoff():
    backoff = piece("def backoff(attempt, rng):\n"
                    "    return min(300, 2 ** (attempt - 1))\n", "backoff")
    report = exam_with(backoff=backoff)
    assert_fails_with(report, "your 07.backoff waits between 0 and min(300, 2^(attempt-1)) s")
    assert "no full jitter" in report.render()

"""Lab 13's side-by-side (course/programs/log_vs_queue.py): the same ten messages, one failing twice and
one always, through a log read by offset, the course's job queue and a JetStream work queue."""

from __future__ import annotations

import secrets

import pytest

from course.infra import broker
from course.programs import log_vs_queue as lvq

pytestmark = pytest.mark.slow


def test_a_log_blocks_or_loses_where_the_queues_retry_each_message_alone(schema):
    token = secrets.token_hex(3).upper()
    log, work = f"T_LOG_{token}", f"T_WQ_{token}"
    try:
        retrying, skipping, jobs, work_queue = lvq.compare(schema, None, log_stream=log, work_queue=work)
    finally:
        for stream in (log, work, f"{work}_DEAD", f"{work}_ADVISORIES"):
            broker.delete_stream(stream)
    after_poison = range(lvq.POISON + 1, lvq.MESSAGES + 1)
    assert retrying.stuck_at == lvq.POISON and not any(n in retrying.attempts for n in after_poison)
    assert retrying.attempts[lvq.FLAKY] == lvq.FLAKY_FAILURES + 1
    assert skipping.not_done == [lvq.FLAKY, lvq.POISON]  # the flaky one would have worked on a retry
    for queue in (jobs, work_queue):
        assert queue.not_done == [lvq.POISON] and queue.dead == [lvq.POISON]
        assert queue.attempts[lvq.POISON] == lvq.MAX_ATTEMPTS and queue.attempts[lvq.FLAKY] == 3
        assert queue.left_in_store == 0
    assert retrying.left_in_store == skipping.replayable == lvq.MESSAGES  # the log keeps what was read
    assert "stuck: retried in place" in lvq.table([retrying, skipping, jobs, work_queue])


def test_the_work_fails_as_planned():
    with pytest.raises(lvq.Refused):
        lvq.handle(lvq.FLAKY, 2)
    lvq.handle(lvq.FLAKY, 3)
    with pytest.raises(lvq.Refused):
        lvq.handle(lvq.POISON, 99)

"""What a job's payload may hold (course.core.payloads): a JSON object within 64 KiB, checked before
anything is written; and what the worker does with one that got past the checks (written with SQL).
Each refusal is one clear line, and nothing is stored."""

import re

import psycopg
import pytest

from course.core import queue
from course.errors import InvalidJob
from course.infra.processes import wait_until


def count(conn, table="jobs"):
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


@pytest.mark.parametrize("payload, message", [
    ('{"order_id": 98', "payload must be a dict"),  # JSON text, and broken at that
    (b'{"order_id": 98}', "payload must be a dict, not bytes"),
    ([98, 99], "payload must be a dict (a JSON object), not list"),
    ({"order_id": {1, 2}}, "cannot be stored as JSON"),
    ({"ratio": float("inf")}, "cannot be stored as JSON"),
])
def test_a_payload_that_is_not_a_json_object_is_refused_and_nothing_stored(conn, payload, message):
    with pytest.raises(InvalidJob, match=re.escape(message)) as raised:
        queue.enqueue(conn, "send_receipt", payload)
    assert "Nothing was enqueued" in str(raised.value)
    assert count(conn) == 0


def test_broken_json_written_with_sql_is_refused_by_postgresql(conn):
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="json"):
        conn.execute("""INSERT INTO jobs (type, payload) VALUES ('send_receipt', '{"order_id": 98')""")
    assert count(conn) == 0


@pytest.mark.slow
def test_json_that_is_not_an_object_is_dead_lettered_at_once_and_the_rest_still_run(conn, start_workers):
    # Another producer (a script, another language) wrote these with SQL, past our checks.
    conn.execute("""INSERT INTO jobs (type, payload) VALUES ('noop', '"order 98"'), ('noop', '[98]'),
                                                            ('noop', 'null')""")
    good = queue.enqueue(conn, "noop", {"order_id": 98})
    start_workers(1, concurrency=2, lease_s=5)
    wait_until(lambda: count(conn) == 0, timeout=60, what="the queue to empty")
    dead = queue.dead_jobs(conn)
    assert len(dead) == 3 and {d.reason for d in dead} == {"bad_payload"}
    assert {d.error for d in dead} == {f"payload must be a JSON object, not {text}"
                                       for text in ('"order 98"', "[98]", "null")}
    assert {d.attempts for d in dead} == {1}
    assert good not in {d.id for d in dead}


def test_an_oversized_payload_is_refused_at_the_limit_not_before(conn):
    envelope = len('{"blob":""}')
    assert queue.enqueue(conn, "import", {"blob": "x" * (queue.MAX_PAYLOAD_BYTES - envelope)})
    with pytest.raises(InvalidJob, match=re.escape("the limit is 65,536 (64 KiB). Put ids in the job")):
        queue.enqueue(conn, "import", {"blob": "x" * (queue.MAX_PAYLOAD_BYTES - envelope + 1)})
    with pytest.raises(InvalidJob, match="payload number 2"):
        queue.enqueue_many(conn, "import", [{"n": 1}, {"n": 2}, {"blob": "é" * 40_000}])  # 2 bytes each
    assert count(conn) == 1, "only the job at the limit: none of the batch with an oversized payload"


def test_the_payload_limit_counts_the_utf8_bytes_of_what_is_stored_not_escaped_json(conn):
    """11,000 CJK characters are 33,000 bytes of UTF-8: half the limit. Escaped as \\uXXXX they were 66,000
    characters, and refused as "64 KiB; the limit is 64 KiB"."""
    assert queue.enqueue(conn, "import", {"text": "\N{CJK UNIFIED IDEOGRAPH-4E2D}" * 11_000})
    envelope = len('{"blob":""}')
    room = queue.MAX_PAYLOAD_BYTES - envelope
    at_the_limit = "\N{EURO SIGN}" * (room // 3) + "x" * (room % 3)  # three bytes each, then one each
    assert queue.enqueue(conn, "import", {"blob": at_the_limit})
    with pytest.raises(InvalidJob, match=r"payload is 65,537 bytes of UTF-8; the limit is 65,536 \(64 KiB\)"):
        queue.enqueue(conn, "import", {"blob": at_the_limit + "x"})
    stored = conn.execute("SELECT payload->>'text', octet_length(payload::text) FROM jobs ORDER BY id").fetchall()
    assert stored[0][0] == "\N{CJK UNIFIED IDEOGRAPH-4E2D}" * 11_000
    assert count(conn) == 2


def nested(depth: int, leaf=1):
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


LONE_SURROGATE = "\ud800"  # what a bad decode (errors="surrogateescape") leaves in a str: not valid Unicode


def test_a_payload_nested_to_the_limit_is_stored_and_read_back(conn):
    deep = {"deep": nested(queue.MAX_PAYLOAD_DEPTH - 1)}
    job_id = queue.enqueue(conn, "send", deep)
    [job] = queue.claim(conn)
    assert (job.id, job.payload) == (job_id, deep)


def test_a_payload_too_deep_for_python_written_with_sql_is_dead_lettered_by_the_claim_not_raised(conn):
    """Another producer wrote it with SQL, past our checks: jsonb took it, json.loads cannot read it back
    (RecursionError). The claim buries it with the reason and hands out the jobs behind it."""
    conn.execute("INSERT INTO jobs (type, payload, priority) VALUES ('send', (repeat('[', 5000) || repeat(']', 5000))::jsonb, 5)")
    good = queue.enqueue(conn, "send", {"n": 1})
    assert [job.id for job in queue.claim(conn, limit=5)] == [good]
    [dead] = queue.dead_jobs(conn)
    assert (dead.reason, dead.attempts) == ("bad_payload", 1)
    assert "nested deeper than" in dead.error and isinstance(dead.payload, queue.UnreadablePayload)

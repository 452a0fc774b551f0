"""course.infra.eventlog: a history several processes append to, read back whole and in time order."""

import os
from dataclasses import dataclass

from course.infra import eventlog


@dataclass(frozen=True, kw_only=True)
class Sent(eventlog.Event):
    job: int


def test_events_come_back_in_time_order_as_the_historys_own_type(tmp_path):
    path = tmp_path / "history.jsonl"
    eventlog.record(path, t=2.0, kind="acked", job=7)
    eventlog.record(path, t=1.0, kind="claimed", job=7)
    assert eventlog.read(path, Sent) == [Sent(t=1.0, pid=os.getpid(), kind="claimed", job=7),
                                         Sent(t=2.0, pid=os.getpid(), kind="acked", job=7)]


def test_a_line_torn_by_a_kill_is_skipped_and_a_missing_file_is_no_events(tmp_path):
    path = tmp_path / "history.jsonl"
    eventlog.record(path, kind="claimed", job=1)
    with open(path, "a") as out:
        out.write('{"t": 3.0, "pid": 1, "kind": "ack')  # SIGKILLed mid-write
    assert [e.kind for e in eventlog.read(path, Sent)] == ["claimed"]
    assert eventlog.read(tmp_path / "never-written.jsonl") == []
    eventlog.record(None, kind="nowhere")  # no history asked for: nothing written, nothing raised


def test_since_counts_seconds_from_a_start_and_the_timeline_from_it(tmp_path):
    path = tmp_path / "history.jsonl"
    started_at = 1_000.0
    eventlog.record(path, since=started_at, kind="claimed", job=3)
    [event] = eventlog.read(path, Sent)
    assert event.t > 1e6  # unix time minus 1000 s: seconds since a start long ago
    text = eventlog.timeline([Sent(t=0.5, pid=1, kind="claimed", job=3), Sent(t=1.75, pid=1, kind="acked", job=3)],
                             lambda e: f"job {e.job} {e.kind}", since=0.0)
    assert text.splitlines() == ["  0.50 s  job 3 claimed", "  1.75 s  job 3 acked"]
    assert eventlog.timeline([], str) == "(nothing happened)"

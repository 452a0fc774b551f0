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


def test_a_kept_history_takes_each_childs_lines_as_its_own_and_nothing_else(tmp_path):
    """A child writes into its own pipe; each line lands stamped with the pid we started and our stamp, not
    what it claimed; a line that is not a JSON object is dropped; settle() makes what it wrote so far
    readable while it runs."""
    import sys

    from course.infra import processes

    kept = eventlog.Kept("course-test-kept-")
    script = ("import os, sys\nfrom course.infra import eventlog\n"
              "eventlog.record(sys.argv[1], kind='claimed', job=1, pid=1, worker=9)\n"
              "os.write(int(list(__import__('json').loads(os.environ['COURSE_EVENT_FEEDS']).values())[0]),"
              " b'not json\\n[1, 2]\\n')\n"
              "eventlog.record(sys.argv[1], kind='acked', job=1)\n"
              "open(sys.argv[2], 'w').write('written')\n"
              "import time; time.sleep(30)\n")
    marker = tmp_path / "marker"
    feed = kept.feed(worker=0)
    child = processes.spawn("kept-test", [sys.executable, "-c", script, kept.path, str(marker)],
                            env=feed.env, pass_fds=feed.fds)
    feed.started(child.pid)
    try:
        processes.wait_until(marker.exists, 120, what="the child to write its lines")
        kept.settle()
        assert [(e["kind"], e["pid"], e["worker"]) for e in eventlog.read(kept.path)] == [
            ("claimed", child.pid, 0), ("acked", child.pid, 0)]
    finally:
        child.kill()
        kept.close()
        os.unlink(kept.path)


def test_one_child_feeds_several_kept_histories_each_line_into_the_one_it_names():
    """feeding(): a consumer writes its own history and its renderer's page log, each through a pipe of its own."""
    import sys

    from course.infra import processes

    histories = [eventlog.Kept("course-test-kept-a-"), eventlog.Kept("course-test-kept-b-")]
    script = ("import sys\nfrom course.infra import eventlog\n"
              "eventlog.record(sys.argv[1], kind='received', who='someone else')\n"
              "eventlog.record(sys.argv[2], kind='drawn', page=0)\n")
    feeds = eventlog.feeding(histories, who="consumer0")
    child = processes.spawn("kept-test", [sys.executable, "-c", script, *(h.path for h in histories)],
                            env=feeds.env, pass_fds=feeds.fds)
    feeds.started(child.pid)
    try:
        assert child.wait(120) == 0, child.log_tail(10)
        for history in histories:
            history.close()
        assert [(e["kind"], e["who"], e["pid"]) for e in eventlog.read(histories[0].path)] == [
            ("received", "consumer0", child.pid)]
        assert [(e["kind"], e["page"], e["pid"]) for e in eventlog.read(histories[1].path)] == [("drawn", 0, child.pid)]
    finally:
        for history in histories:
            history.close()
            os.unlink(history.path)

"""Lab 14's report, read from a run's record: a job is done once however often its ack ran (an ack whose
commit was cut runs again), latency percentiles are nearest-rank and count from the first worker up,
and each worker has one line."""

import matplotlib

matplotlib.use("Agg")

from course.grading.exam.figure import plot  # noqa: E402
from course.grading.exam.soak import Event, Run  # noqa: E402
from course.grading.exam.speed import beside, done_times, per_worker, speed  # noqa: E402


def a_run() -> Run:
    events = [Event(t=1.0, pid=1, kind="claimed", worker=0, job=1, attempt=1),
              Event(t=1.2, pid=1, kind="acked", worker=0, job=1, attempt=1, facts={"deleted": True}),  # cut before commit
              Event(t=1.3, pid=1, kind="connection_lost", worker=0),
              Event(t=3.0, pid=2, kind="claimed", worker=2, job=1, attempt=2),
              Event(t=3.1, pid=2, kind="acked", worker=2, job=1, attempt=2, facts={"deleted": True}),
              Event(t=4.0, pid=1, kind="buried", worker=0, job=2, attempt=3, facts={"applied": True}),
              Event(t=2.0, pid=0, kind="cut", worker=-1, facts={"backends": 1})]
    return Run(7, {1: "ordinary", 2: "poison", 3: "ordinary"}, events, ledger={1: [(2, 2)]}, dead={2: (3, "failed")},
               stuck={3: 1}, claims=[], timed_out=False, elapsed_s=5.0, kills=0, freezes=0, cuts=1)


def test_a_job_acked_twice_is_done_once_at_its_committed_ack():
    run = a_run()
    assert done_times(run) == [3.1, 4.0]
    assert speed(run).jobs_done == 2 and speed(run).throughput == 2 / 5.0
    assert (speed(run).p50_s, speed(run).p99_s) == (3.1, 4.0)


def test_latency_and_throughput_count_from_the_first_worker_up_not_from_the_spawn():
    run = a_run()
    run.events += [Event(t=0.5, pid=1, kind="ready", worker=0), Event(t=0.9, pid=2, kind="ready", worker=2)]
    assert (speed(run).p50_s, speed(run).p99_s) == (2.6, 3.5)
    assert speed(run).throughput == 2 / 4.5


def test_each_worker_has_one_line_and_only_committed_effects_count_as_booked():
    lines = per_worker(a_run()).splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("  worker 0 (03.claim ") and "booked   0" in lines[0] and "buried  1" in lines[0]
    assert "connections lost 1" in lines[0], lines[0]
    assert lines[1].startswith("  worker 2 (03.claim_batch)") and "booked   1" in lines[1], lines[1]


def test_the_report_sets_the_run_beside_the_reference_and_plots_both():
    table = beside(a_run(), a_run()).splitlines()
    assert table[0].split() == ["jobs/s", "p50", "(s)", "p99", "(s)", "jobs", "done", "run", "(s)"]
    assert table[1].startswith("your queue") and table[2].startswith("the reference")
    figure = plot(a_run(), a_run())
    rate, total = figure.axes
    assert {line.get_label() for line in rate.get_lines()} == {"your queue", "the reference"}
    assert "connections cut" in [text.get_text() for text in rate.get_legend().get_texts()]

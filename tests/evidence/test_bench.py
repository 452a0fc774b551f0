"""The benchmark's bookkeeping, without a database: which drains run back to back, and how the ratios
are taken. (The drains themselves run in `make bench`; they take minutes.)"""

import argparse

from course.evidence import bench
from course.evidence.bench import Plan, Results


def plan(counts=(1, 2), keys=None) -> Plan:
    rows = [row for row in bench.ROWS if keys is None or row.key in keys]
    return Plan(rounds=3, jobs=1000, process_counts=counts, seed=1, rows=rows)


def drains(block):
    return [(what[0].key, what[1]) for kind, what in block if kind == "drain"]


def test_every_contender_runs_at_every_process_count():
    blocks = [drains(block) for block in plan(counts=(1, 2, 4, 8)).measurements()]
    measured = {pair for block in blocks for pair in block}
    for row in bench.ROWS:
        for n in (1, 2, 4, 8):
            assert (row.key, n) in measured, f"{row.key} is not measured at {n} processes"


def test_the_worker_and_its_peers_are_measured_back_to_back_at_the_same_process_count():
    blocks = [drains(block) for block in plan(counts=(1, 2, 4, 8)).measurements()]
    for n in (1, 2, 4, 8):
        [block] = [b for b in blocks if ("worker", n) in b]
        for key in ("pgqueuer", "pgqueuer-psycopg", "procrastinate", "bare-100", "ref-100"):
            assert (key, n) in block
        assert {count for _, count in block} == {n}, "a block mixes process counts"


def test_no_drain_is_measured_twice_in_a_round():
    blocks = [drains(block) for block in plan(counts=(1, 2, 4, 8)).measurements()]
    every = [pair for block in blocks for pair in block]
    assert len(every) == len(set(every))


def test_ratios_are_taken_within_each_round_and_at_the_same_process_count():
    results = Results(rates={
        # round by round: the machine got slower in round 2, both rows alike
        "worker": {1: [10.0, 5.0, 10.0], 2: [30.0, 15.0, 30.0]},
        "pgqueuer": {1: [5.0, 2.5, 4.0], 2: [10.0, 5.0, 10.0]},
    })
    per_count = results.paired_ratios("worker", "pgqueuer")
    assert per_count == {1: 2.0, 2: 3.0}
    assert results.paired_ratio("worker", "pgqueuer") == 2.5
    # A ratio of "best process count" medians would have said 30 / 5 = 6: not what we publish.
    lines = bench.headline(results, (1, 2))
    [line] = [line for line in lines if line.lstrip().startswith("reference worker (concurrency")]
    assert "/ pgqueuer asyncpg" in line and line.split()[-3:] == ["2.00x", "3.00x", "2.50x"]


def test_an_every_process_count_target_is_met_only_if_met_at_each():
    results = Results(rates={
        "worker": {1: [10.0], 2: [19.0], 4: [40.0]},
        "pgqueuer": {1: [4.0], 2: [10.0], 4: [10.0]},
    })
    [verdict] = [v for v in bench.verdicts(results, {}) if v.what.startswith("reference worker / pgqueuer")]
    assert verdict.per_count == {1: 2.5, 2: 1.9, 4: 4.0}
    assert verdict.value == 1.9 and verdict.met is False


def test_a_quick_run_still_measures_every_contender_at_each_of_its_process_counts():
    args = argparse.Namespace(quick=True, rows=None, processes=None, rounds=None, jobs=None, seed=3,
                              profile=False, report=None)
    quick, _ = bench.make_plan(args)
    assert len(quick.process_counts) >= 2
    blocks = [drains(block) for block in quick.measurements()]
    measured = {pair for block in blocks for pair in block}
    for row in quick.rows:
        assert all((row.key, n) in measured for n in quick.process_counts)


def test_a_quick_run_measures_both_sides_of_every_target_and_nothing_else():
    args = argparse.Namespace(quick=True, rows=None, processes=None, rounds=None, jobs=None, seed=3,
                              profile=False, report=None)
    quick, missing = bench.make_plan(args)
    needed = {key for _, a, b, *_ in bench.TARGETS for key in (a, b)}
    installed = {row.key for row in bench.ROWS if row.needs not in missing}
    assert {row.key for row in quick.rows} == needed & installed
    assert quick.latency_ways == ("notify",)  # the latency target; polling answers none


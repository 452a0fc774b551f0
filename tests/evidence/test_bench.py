"""The benchmark's bookkeeping, without a database: which drains run back to back, how the ratios
are taken, and how the bare loops read the queue's statements. (Every row runs at a tiny size in
test_bench_rows.py; at full size in `make bench`, which takes minutes.)"""

import argparse

import pytest

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



def test_the_bare_loops_take_the_acks_parameters_from_the_claims_columns_whatever_their_names(monkeypatch):
    """A token column renamed in queue.sql (it was `lease`, then `lease_token`) renames the claim's
    column and the ack's placeholder alike: the bare loops follow both, spelling neither."""
    from course.evidence.benchmarks import statements

    renamed = {
        "ack": "DELETE FROM jobs WHERE id = %(id)s AND claim_token = %(claim_token)s",
        "ack_many": "DELETE FROM jobs USING unnest(%(ids)b::bigint[], %(claim_tokens)b::uuid[]) AS d (id, t) "
                    "WHERE jobs.id = d.id AND jobs.claim_token = d.t",
    }
    monkeypatch.setattr(statements.sql, "query", lambda file, name: renamed[name])
    acks = statements.Acks.for_claim(["id", "type", "claim_token"])
    assert acks.one((7, "noop", "t7")) == {"id": 7, "claim_token": "t7"}
    assert acks.many([(7, "noop", "t7"), (8, "noop", "t8")]) == {"ids": [7, 8], "claim_tokens": ["t7", "t8"]}
    with pytest.raises(RuntimeError, match=r"%\(claim_token\)s.*no column 'claim_token'"):
        statements.Acks.for_claim(["id", "type", "lease"])  # a claim left behind by the rename


def test_the_bare_claim_is_given_exactly_the_parameters_it_names():
    from course.evidence.benchmarks import statements

    claim = statements.claim_sql()
    params = statements.claim_params(claim, limit=100, lease_s=60.0)
    assert sorted(params) == sorted(statements.placeholders(claim))
    with pytest.raises(RuntimeError, match="asks for \\['shard'\\]"):
        statements.claim_params(claim + " AND %(shard)s", limit=1, lease_s=1.0)
    plain = statements.claim_sql(skip_locked=False)
    assert "FOR UPDATE SKIP LOCKED" not in plain and "FOR UPDATE" in plain

"""Every row of `python -m course bench`, run once at a tiny size: a rename in queue.sql, a peer's new
version or a changed measurement breaks `make test`, not the next benchmark run.

A row passes when it drains exactly the jobs it was given (the measurement itself checks that: a bare
loop counts what it claimed and finds the table empty; our workers leave the jobs table empty and the
dead-letter table untouched; a peer's own table counts each job succeeded once; pgbench commits every
transaction). The rates are not looked at: at this size they measure nothing.
"""

import time

import pytest

from course.evidence import bench
from course.evidence.benchmarks import peers
from course.evidence.benchmarks.measure import Bench
from course.infra.private_server import PrivateServer

JOBS = 300  # per row: a few claims of 100 for the batched rows, a few hundred commits for the others

# Starting the peers' processes is most of it (pgqueuer imports and installs in 3-7 s): 25 s on a quiet
# machine, 80 s at load 18. The suite's 300 s per test is too close for a machine busier still.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_every_bench_row_drains_exactly_its_jobs():
    missing = [name for name, version in peers.available().items() if version is None]
    assert not missing, (f"{missing} not installed, so their rows cannot run: {peers.install_hint(missing)} "
                         f"(the test extra has them)")
    failures, drained = {}, {}
    with PrivateServer(prefix="bench-rows-") as server:
        bench_ = Bench(server)
        try:
            for row in bench.ROWS:
                began = time.monotonic()
                try:
                    drain = row.run(bench_, 1, JOBS)
                except Exception as error:  # noqa: BLE001 - every row is run, and every failure named
                    failures[row.key] = f"{type(error).__name__}: {error}"
                    continue
                drained[row.key] = (drain.jobs, round(time.monotonic() - began, 1))
        finally:
            bench_.close()
    print({key: f"{s} s" for key, (_, s) in drained.items()})  # where the time went (pytest -s shows it)
    assert not failures, "rows that failed:\n" + "\n".join(f"  {key}: {why}" for key, why in failures.items())
    assert {key: jobs for key, (jobs, _) in drained.items()} == {row.key: JOBS for row in bench.ROWS}, drained

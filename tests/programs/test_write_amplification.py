"""What each way of leasing a job writes to the WAL, as lab 11 measures it: the records a design must
write (counted exactly by pg_walinspect), and what its claim must read; not the bytes, which move with
where pages fill."""

import pytest

from course.errors import InvalidArgument
from course.infra.private_server import PrivateServer
from course.programs import write_amplification as wa

pytestmark = pytest.mark.slow
JOBS = 300


@pytest.fixture(scope="module")
def server():
    with PrivateServer(prefix="wa-test-") as private:
        yield private


def test_the_row_lock_writes_one_lock_and_one_delete_a_job_and_no_index_entry(server):
    writes = wa.measure(server.conninfo(), "row lock", jobs=JOBS)
    assert writes.records["Heap/LOCK"][0] == JOBS and writes.records["Heap/DELETE"][0] == JOBS
    assert "Btree/INSERT_LEAF" not in writes.records and writes.updates == 0


def test_the_lease_writes_a_new_row_version_and_an_entry_in_both_indexes_never_hot(server):
    lock = wa.measure(server.conninfo(), "row lock", jobs=JOBS)
    lease = wa.measure(server.conninfo(), "lease", jobs=JOBS)
    assert (lease.updates, lease.hot_updates) == (JOBS, 0), "the claim moves run_at, which jobs_next holds"
    index_entries, _ = lease.per_job("Btree/INSERT_LEAF")
    assert 1.9 <= index_entries <= 2.0  # two a job; a page split logs its entry in the split record instead
    assert lease.records["Heap/DELETE"][0] == JOBS
    assert lease.bytes_per_job > 3 * lock.bytes_per_job


def test_an_unindexed_lease_end_with_room_on_the_page_makes_most_claims_hot(server):
    writes = wa.measure(server.conninfo(), "lease, unindexed", jobs=JOBS, fillfactor=50)
    assert writes.updates == JOBS and writes.hot_share > 0.5
    assert writes.per_job("Btree/INSERT_LEAF")[0] < 1.0


def test_only_the_unindexed_design_makes_a_claim_read_past_the_running_jobs(server):
    pages = {design: wa.claim_pages(server.conninfo(), design, in_flight=500, waiting=500)
             for design in ("lease", "lease, unindexed")}
    assert pages["lease, unindexed"] > 3 * pages["lease"], pages


def test_an_unknown_design_or_fillfactor_is_refused_before_anything_is_written(server):
    with pytest.raises(InvalidArgument, match="design is one of"):
        wa.measure(server.conninfo(), "optimistic")
    with pytest.raises(InvalidArgument, match="fillfactor is a percentage"):
        wa.measure(server.conninfo(), "lease", fillfactor=5)
    with pytest.raises(InvalidArgument, match="no jobs in flight"):
        wa.claim_pages(server.conninfo(), "row lock")

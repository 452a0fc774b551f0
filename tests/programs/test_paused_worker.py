"""Lab 04's demos of what a heartbeat does not do (course/programs/paused_worker.py), on real workers:
a worker frozen past its lease runs its job beside the next one and only its ack is refused; a hung
handler's lease is renewed for ever. What is asserted is what the queue guarantees, not timings."""

from __future__ import annotations

import pytest

from course.programs import paused_worker

pytestmark = pytest.mark.slow


def test_a_worker_frozen_past_its_lease_makes_its_effect_and_has_its_ack_refused(schema):
    run = paused_worker.pause_past_lease(schema, booking_id=983, lease_s=1.0, sync_s=1.0)
    assert run.syncs == 2  # the token fences the ack, not the effect
    assert run.ack_refused and run.jobs_left == 0
    assert run.paused[0] < run.second_started < run.paused[1]  # the second began while the first was frozen


def test_a_hung_handlers_lease_is_renewed_and_the_job_never_comes_back(schema):
    samples = paused_worker.hung_lease(schema, lease_s=1.0, watch_s=2.5, every_s=0.5)
    assert [s.attempts for s in samples] == [1] * len(samples) and len(samples) >= 4
    ends = [s.at_s + s.lease_left_s for s in samples]  # when the lease would end, seconds after the claim
    assert ends[-1] > ends[0] + 1.0  # renewed while the handler hangs: the first lease is long gone

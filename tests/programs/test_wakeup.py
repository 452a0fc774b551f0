"""course/programs/wakeup.py: what NOTIFY promises (sent at commit, not stored), and how long a worker
that polls takes to notice a job. Only what PostgreSQL and the worker guarantee is asserted: delays
and rates are the lab's measurements."""

from __future__ import annotations

import pytest

from course.errors import InvalidArgument
from course.programs import wakeup


def test_notify_is_sent_at_commit_never_on_rollback_and_not_kept_for_later_listeners(schema):
    heard = wakeup.what_notify_promises(schema, quiet_s=0.3)
    assert heard == wakeup.Heard(while_open=0, after_commit=1, after_rollback=0, late_listener=0, jobs_waiting=4)


@pytest.mark.slow
def test_a_worker_that_does_not_listen_still_starts_every_job_by_polling(schema):
    delays = wakeup.wake_delays(schema, listen=False, poll_interval_s=0.2, jobs=4, mean_gap_s=0.05, seed=2)
    assert len(delays.seconds) == 4 and all(d >= 0 for d in delays.seconds)
    assert delays.how == "no LISTEN, polling every 0.2 s"


@pytest.mark.slow
def test_an_idle_worker_runs_claims_while_it_polls(schema):
    rates = wakeup.polls_per_second(schema, intervals=(0.1,), seconds=1.5)
    assert list(rates) == [0.1] and rates[0.1] > 0


def test_a_poll_interval_of_zero_is_refused(schema):
    with pytest.raises(InvalidArgument, match="poll_interval_s"):
        wakeup.wake_delays(schema, listen=True, poll_interval_s=0)

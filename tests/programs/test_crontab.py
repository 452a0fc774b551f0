"""course.programs.crontab, lab 08's foil: a crontab on every server enqueues each slot once per server,
and loses the slots that passed while it was down. (course.core.scheduler, the fix, is
tests/core/test_scheduler.py's.) Real PostgreSQL, real processes, the simulated clock.
"""

import pytest

from course.core import scheduler
from course.programs import crontab
from tests.core.test_scheduler import add_holds_and_invoices, at, jobs_per_slot, sched  # noqa: F401 (a fixture)


@pytest.fixture
def crontabs(schema, started):
    """start(n) -> [Child]; all killed at the end of the test."""
    def start(n=3):
        children = crontab.start(schema, n)
        started.extend(children)
        return children

    return start


def test_a_crontab_starting_up_enqueues_nothing_for_the_past(sched):
    add_holds_and_invoices(sched)
    tick = crontab.remembering_tick()
    assert tick(sched, at(14, 2, 30)) == []  # its first look: nothing before it
    assert len(tick(sched, at(14, 2, 40))) == 2  # 02:35 and 02:40 of the five-minute holds
    assert jobs_per_slot(sched)[("release_unpaid_holds", at(14, 2, 35))] == 1


@pytest.mark.slow
def test_a_crontab_per_server_enqueues_once_per_process_and_loses_what_passed_while_it_was_down(sched, crontabs):
    add_holds_and_invoices(sched)
    scheduler.set_clock(sched, at(14, 1, 58))
    servers = crontabs(3)
    scheduler.set_clock(sched, at(14, 2, 0), wait_for=servers)
    scheduler.stop(servers)
    scheduler.set_clock(sched, at(14, 2, 12))
    servers = crontabs(3)
    scheduler.set_clock(sched, at(14, 2, 15), wait_for=servers)
    per_slot = jobs_per_slot(sched)
    assert per_slot[("nightly_invoices", at(14, 2, 0))] == 3
    assert per_slot[("release_unpaid_holds", at(14, 2, 0))] == 3
    assert per_slot[("release_unpaid_holds", at(14, 2, 5))] == 0  # passed while no cron ran: lost
    assert per_slot[("release_unpaid_holds", at(14, 2, 15))] == 3
    assert scheduler.runs(sched) == []  # and nothing anywhere records it

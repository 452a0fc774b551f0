"""What the wrong-answer tests share: a failed check must fail for the reason given."""

import time
from pathlib import Path

from course.grading.checks.lab13 import PAGE_S as LAB13_PAGE_S


def failed(report) -> list[str]:
    """The checks that failed (a check not reached, after an earlier failure, is not one of them)."""
    return [r.name for r in report.results if not r.passed and r.reached]


def fails_exactly(report, reasons, may=()) -> bool:
    """The report fails each check `reasons` names, and nothing else but what `may` names (a consequence
    the scenarios drawn may or may not show on their own: an unfenced heartbeat that says "extended" too)."""
    names = failed(report)
    return (all(any(r in name for name in names) for r in reasons)
            and all(any(r in name for r in (*reasons, *may)) for name in names))


def assert_fails_with(report, *fragments: str) -> None:
    names = failed(report)
    assert not report.passed and names, report.render()
    for fragment in fragments:
        assert any(fragment in name for name in names), f"expected a failure about {fragment!r}:\n{report.render()}"


# -- the right part of a wrong answer: what several of a lab's wrong answers do the same way -----------


def slots_to_run(conn, schedule, now):
    """Lab 08: the due slots the schedule's policy runs, after recording the ones it skips (as the
    solution's tick does); a wrong tick then gets the claim or the enqueue wrong."""
    from course.core import scheduler

    decision = scheduler.plan(scheduler.due_slots(conn, schedule, now), schedule.on_missed)
    for slot in decision.skip:
        scheduler.skip_slot(conn, schedule, slot)
    return decision.run


def enqueue_side_jobs(conn, booking_id: int) -> None:
    """Lab 12: the booking's three side jobs, on `conn` (a wrong checkout gets the when or the where wrong)."""
    from course.core import queue
    from course.programs import stayhub

    for job_type in stayhub.SIDE_JOBS:
        queue.enqueue(conn, job_type, {"booking_id": booking_id})


def render_page(booking_id, page) -> None:
    """Lab 13: the notebook's render_page, as 13.keep_alive's answers (right and wrong) call it: one page
    takes the check's PAGE_S. Nothing is imported in the call: a consumer process that first imported the
    checks there would be silent past the AckWait (1.2 s) at a high load."""
    time.sleep(LAB13_PAGE_S)


RED10_LAB13 = Path(__file__).parents[1] / "redteam" / "red10" / "lab13_answers"
F2G_LAB13 = Path(__file__).parents[1] / "redteam" / "f2-f2g" / "answers"
F4_LAB13 = Path(__file__).parents[1] / "redteam" / "f4-f4r13" / "answers"
F5_LAB13 = Path(__file__).parents[1] / "redteam" / "f5-f5b13" / "answers"


def notebook_answer(source: str, filename: str = "<cell>"):
    """Lab 13: a 13.keep_alive answer defined as in its notebook (render_page and PAGE_S from the setup
    cell): notebook code, pickled by value for the consumer processes."""
    scope = {"__name__": "__main__", "render_page": render_page, "PAGE_S": LAB13_PAGE_S}
    exec(compile(source, filename, "exec"), scope)
    return scope["render_invoice"]


def red_team_answer(name: str, folder: Path = RED10_LAB13):
    """Lab 13: a blind red team's 13.keep_alive answer (issue 22: red10's by default; round f2's in
    F2G_LAB13, named as its file), defined as in its notebook."""
    return notebook_answer((folder / f"{name}.py").read_text(), f"{name}.py")

"""Lab 13's checks pass correct answers written unlike the reference (issue 22: a check that fails a correct
answer is as wrong as one that passes a wrong one), the answers the hints spell out among them. Most are a
blind red team's (issue 22, round 1), written from the notebook alone.
"""

import itertools
import threading
import time
from fractions import Fraction

import pytest

from course.infra.broker import TRANSIENT
from course.grading import run_check

from .wrong_answers import F2G_LAB13, F4_LAB13, F5_LAB13, notebook_answer, red_team_answer, render_page
from .wrong_answers import render_page as draw_a_page

# -- 13.choose ------------------------------------------------------------------------------------------


def choose_as_hint_3_says(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    needs_broker = peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1
    if not needs_broker:
        return "postgres"
    return "broker + outbox" if born_in_a_db_transaction else "broker"


def choose_by_doubling_the_peak(peak, drain, born, teams):
    """2 * peak against the drain, early returns, the opposite condition first."""
    if 2 * peak <= drain and teams <= 1:
        return "postgres"
    if born:
        return "broker + outbox"
    return "broker"


def choose_from_a_table(peak, drain, born, teams):
    """Exact fractions, and a lookup table of the four outcomes."""
    over_half = Fraction(peak) > Fraction(drain) / 2
    return {(False, False): "postgres", (False, True): "postgres",
            (True, False): "broker", (True, True): "broker + outbox"}[(over_half or teams > 1, bool(born))]


def choose_by_joining_reasons(peak, drain, born, teams):
    """A ratio, teams >= 2, and the answer joined from its parts."""
    reasons = [reason for reason, needed in (("peak", peak / drain > 0.5), ("teams", teams >= 2)) if needed]
    if not reasons:
        return "postgres"
    return " + ".join(["broker"] + (["outbox"] if born else []))


@pytest.mark.parametrize("answer", [choose_as_hint_3_says, choose_by_doubling_the_peak, choose_from_a_table,
                                    choose_by_joining_reasons])
@pytest.mark.parametrize("seed", [None, 1, 2])
def test_correct_decisions_pass(answer, seed):
    report = run_check("13.choose", seed=seed, choose_queue=answer)
    assert report.passed, report.render()


# -- 13.publish_retry -----------------------------------------------------------------------------------


def retry_as_the_hints_say(publish, subject, payload, msg_id, give_up_after_s=30.0):
    deadline = time.monotonic() + give_up_after_s
    pause = 0.05
    while True:
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)


def _pauses():
    for n in itertools.count():
        yield min(0.05 * 2 ** n, 0.4)


def retry_from_a_generator_of_pauses(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """The pauses from a generator, capped at 0.4 s; the last error kept and raised after the loop."""
    started = time.monotonic()
    last_error = None
    for pause in _pauses():
        try:
            return publish(subject, payload, msg_id=msg_id)
        except TRANSIENT as error:
            last_error = error
        if time.monotonic() - started + pause > give_up_after_s:
            raise last_error
        time.sleep(pause)


def retry_on_the_wall_clock(publish, subject, payload, msg_id, give_up_after_s=30.0):
    """time.time() for the deadline, the pause computed from the attempt's number, continue/else shape."""
    give_up_at = time.time() + give_up_after_s
    attempt = 0
    while True:
        try:
            ack = publish(subject, payload, msg_id=msg_id)
        except TRANSIENT:
            wait = min(0.05 * (2 ** attempt), 0.45)
            attempt += 1
            if time.time() + wait >= give_up_at:
                raise
            time.sleep(wait)
            continue
        return ack


def retry_recursively(publish, subject, payload, msg_id, give_up_after_s=30.0, _pause=0.05, _deadline=None):
    deadline = _deadline if _deadline is not None else time.monotonic() + give_up_after_s
    try:
        return publish(subject, payload, msg_id=msg_id)
    except TRANSIENT:
        if time.monotonic() + _pause > deadline:
            raise
    time.sleep(_pause)
    return retry_recursively(publish, subject, payload, msg_id, give_up_after_s, min(_pause * 2, 0.5), deadline)


@pytest.mark.slow
@pytest.mark.parametrize("answer", [retry_as_the_hints_say, retry_from_a_generator_of_pauses, retry_on_the_wall_clock,
                                    retry_recursively])
def test_correct_retries_pass(answer):
    report = run_check("13.publish_retry", seed=6, publish_with_retry=answer)
    assert report.passed, report.render()


# -- 13.keep_alive --------------------------------------------------------------------------------------
# The notebook's render_page (wrong_answers.render_page), as the check's answers see it.


def keep_alive_as_hint_3_says(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        task.in_progress()


def keep_alive_before_each_page(task):
    """The in-progress ack before each page, in a while loop."""
    booking, pages = task.data["booking_id"], task.data["pages"]
    page = 0
    while page < pages:
        task.in_progress()
        render_page(booking, page)
        page += 1


def keep_alive_from_a_heartbeat_thread(task):
    """A thread that says "still working" every 0.3 s while the pages are drawn, stopped before returning."""
    done = threading.Event()

    def beat():
        while not done.wait(0.3):
            task.in_progress()

    beater = threading.Thread(target=beat, daemon=True)
    beater.start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        done.set()
        beater.join()


def keep_alive_every_other_page(task):
    """Two pages (0.8 s) between in-progress acks: under the 1.2 s AckWait."""
    data = task.data
    for page in range(data["pages"]):
        if page % 2 == 0:
            task.in_progress()
        render_page(data["booking_id"], page)


def keep_alive_by_the_clock(task):
    """An in-progress ack whenever half the AckWait has passed since the last one, checked between pages."""
    last = time.monotonic()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if time.monotonic() - last >= 0.6:
            task.in_progress()
            last = time.monotonic()


@pytest.mark.slow
@pytest.mark.parametrize("answer", [keep_alive_as_hint_3_says, keep_alive_before_each_page,
                                    keep_alive_from_a_heartbeat_thread, keep_alive_every_other_page,
                                    keep_alive_by_the_clock])
def test_correct_handlers_pass(answer):
    report = run_check("13.keep_alive", render_invoice=answer)
    assert report.passed, report.render()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["keep_c1_before_each_page", "keep_c2_while_after_each", "keep_c3_timed_heartbeat"])
def test_the_red_teams_correct_handlers_pass(name):
    """The blind red team's (issue 22, red10), as its notebook cell defined them: the check's renderer
    logs their pages in the consumer processes, as it logs the reference's."""
    report = run_check("13.keep_alive", render_invoice=red_team_answer(name))
    assert report.passed, report.render()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["13.keep_alive__c3_heartbeat_thread", "13.keep_alive__c4_while_kwargs_both_sides",
                                  "13.keep_alive__c5_timed_heartbeat"])
def test_the_f2_red_teams_correct_handlers_pass(name):
    """Round f2's blind red team (tests/grading/redteam/f2-f2g): a heartbeat thread, keyword arguments with an
    ack on both sides of each page, an ack by the clock."""
    report = run_check("13.keep_alive", render_invoice=red_team_answer(name, F2G_LAB13))
    assert report.passed, report.render()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["keep_alive__C02_heartbeat_after_each", "keep_alive__C03_heartbeat_thread",
                                  "keep_alive__C04_time_based"])
def test_the_f4_red_teams_correct_handlers_pass(name):
    """Round f4's blind red team (tests/grading/redteam/f4-f4r13): an ack after each page in a while loop, a
    heartbeat thread every 0.3 s, an ack when 0.5 s have passed."""
    report = run_check("13.keep_alive", render_invoice=red_team_answer(name, F4_LAB13))
    assert report.passed, report.render()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["keep_alive__c07_raise_after_all_pages", "keep_alive__c04_async_to_thread",
                                  "keep_alive__c05_parallel_pages"])
def test_the_f5_red_teams_correct_handlers_pass(name):
    """Round f5's blind red team (tests/grading/redteam/f5-f5b13): c07 draws the other pages after one raised,
    then raises the first error (no rule says a delivery stops at the failing page); c04 is an async def handler
    (the course's consumer awaits it on its loop), each page drawn in a thread; c05 draws the pages four at a
    time in a thread pool, a heartbeat thread acking every 0.3 s (judged from the page log, not the time)."""
    report = run_check("13.keep_alive", render_invoice=red_team_answer(name, F5_LAB13))
    assert report.passed, report.render()


STALLED_BY_THE_MACHINE = """
import os
import subprocess

HERE = os.getpid()  # the check's own process: its in-process run is left alone


def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        if os.getpid() != HERE and task.data["pages"] == 6 and task.deliveries == 1 and page == 3:
            # a loaded machine, played: this consumer process gets no CPU for 1.6 s (past the AckWait) while
            # page 3 is drawn (the stop comes 0.1 s into the page), and lifted by the shell
            subprocess.Popen(["sh", "-c", f"sleep 0.1; kill -STOP {os.getpid()}; sleep 1.6; kill -CONT {os.getpid()}"])
        render_page(task.data["booking_id"], page)
"""


@pytest.mark.slow
def test_a_consumer_process_stalled_by_the_machine_is_not_the_answers_fault():
    """A correct handler whose consumer process the machine stops for longer than the AckWait in the middle of
    a page: JetStream delivers the 6-page invoice again, but every stretch between the handler's words drew one
    page, and the time was spent inside it. Held on the order of events (pages counted, time outside the
    pages), not on the process getting a CPU within 1.2 s."""
    report = run_check("13.keep_alive", render_invoice=notebook_answer(STALLED_BY_THE_MACHINE))
    assert report.passed, report.render()


# The notebook's render_page reached under another name, bound when the answer is defined: the check's
# renderer must see those pages too (in the consumer processes the function itself is rerouted to it,
# not only the global name render_page).
ALIASED = {
    "an alias at definition": """
draw = render_page


def render_invoice(task):
    for page in range(task.data["pages"]):
        draw(task.data["booking_id"], page)
        task.in_progress()
""",
    "a default argument": """
def render_invoice(task, draw=render_page):
    for page in range(task.data["pages"]):
        draw(task.data["booking_id"], page)
        task.in_progress()
""",
    "a closure": """
def renderer_for(draw):
    def render(task):
        for page in range(task.data["pages"]):
            task.in_progress()
            draw(task.data["booking_id"], page)
    return render


render_invoice = renderer_for(render_page)
""",
}


def keep_alive_through_an_imported_alias(task):
    """`from ... import render_page as draw_a_page`: a module's function, sent by reference."""
    for page in range(task.data["pages"]):
        draw_a_page(task.data["booking_id"], page)
        task.in_progress()


@pytest.mark.slow
@pytest.mark.parametrize("way", [*ALIASED, "an imported alias"])
def test_render_page_under_another_name_is_seen(way):
    answer = keep_alive_through_an_imported_alias if way == "an imported alias" else notebook_answer(ALIASED[way])
    report = run_check("13.keep_alive", render_invoice=answer)
    assert report.passed, report.render()

"""13.keep_alive's renderer (course/grading/faults/page_renderer.py): what it logs, in this process and in
a child that unpickles a handler wrapped in it, as the check's consumer processes do."""

import subprocess
import sys
from pathlib import Path

import cloudpickle
import pytest

from course.grading.faults import page_renderer
from course.infra import eventlog


def render_page(booking_id, page):
    raise AssertionError("the renderer takes this one's place")


def draws_every_page(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        task.in_progress()


def skips_a_page_that_fails(task):
    for page in range(task.data["pages"]):
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            pass


def test_a_failed_page_is_delivered_again_and_every_page_drawn_again(tmp_path):
    log = str(tmp_path / "pages.jsonl")
    renderer = page_renderer.Renderer(log, fail=(7, 1), page_s=0)
    page_renderer.run_redelivering(draws_every_page, renderer, {"booking_id": 7, "pages": 3}, max_deliver=5)
    renderer.close()
    assert page_renderer.calls(log) == {7: {1: [(0, "drawn"), (1, "failed")],
                                            2: [(0, "drawn"), (1, "drawn"), (2, "drawn")]}}


def test_a_swallowed_failure_shows_in_the_log(tmp_path):
    log = str(tmp_path / "pages.jsonl")
    renderer = page_renderer.Renderer(log, fail=(7, 1), page_s=0)
    page_renderer.run_redelivering(skips_a_page_that_fails, renderer, {"booking_id": 7, "pages": 3}, max_deliver=5)
    renderer.close()
    assert page_renderer.calls(log) == {7: {1: [(0, "drawn"), (1, "failed"), (2, "drawn")]}}


DRAWS_THE_CHOSEN_PAGE = """
import sys, cloudpickle
renderer = cloudpickle.loads(open(sys.argv[1], "rb").read())
try:
    renderer(7, 1)
except Exception as error:
    print(type(error).__name__)
"""


def test_the_chosen_page_fails_once_across_processes_whatever_its_log_says(tmp_path):
    """"Once" is the ticket's byte, which one read takes: of three processes drawing the chosen page, one
    fails. A "failed" line put into the log first (it disarmed the fault when the renderer read its log, and any
    process that found the file could write one) changes nothing."""
    log = str(tmp_path / "pages.jsonl")
    eventlog.record(log, kind="failed", booking_id=7, page=1, delivery=None)  # forged: the page "failed" already
    renderer = page_renderer.Renderer(log, fail=(7, 1), page_s=0)
    spec = tmp_path / "renderer.pkl"
    spec.write_bytes(cloudpickle.dumps(renderer))
    children = [subprocess.Popen([sys.executable, "-c", DRAWS_THE_CHOSEN_PAGE, str(spec)], stdout=subprocess.PIPE,
                                 text=True, pass_fds=renderer.fds) for _ in range(3)]
    renderer.close()
    said = sorted(child.communicate(timeout=120)[0].strip() for child in children)
    assert said == ["", "", "PageFailed"], said
    assert sorted(p.kind for p in page_renderer.read(log)) == ["drawn", "drawn", "failed", "failed"]


CHILD = """
import sys, cloudpickle
handler = cloudpickle.loads(open(sys.argv[1], "rb").read())

class Task:
    data, deliveries = {"booking_id": 42, "pages": 2}, 3
    def in_progress(self):
        pass

handler(Task())
"""


def test_in_a_child_the_handlers_render_page_is_the_renderer(tmp_path):
    """Notebook code (by value, its own globals) and the renderer reach the child in one pickle; there
    the handler's render_page is the renderer, and each page carries the task's delivery."""
    scope = {"__name__": "__notebook__"}
    exec("def render_page(booking_id, page):\n    raise AssertionError('not the renderer')\n\n"
         "def handler(task):\n    for page in range(task.data['pages']):\n"
         "        render_page(task.data['booking_id'], page)\n", scope)
    log = eventlog.new_file("course-test-pages-")
    try:
        spec = tmp_path / "spec.pkl"
        spec.write_bytes(cloudpickle.dumps(page_renderer.with_renderer(scope["handler"],
                                                                       page_renderer.Renderer(log, page_s=0))))
        done = subprocess.run([sys.executable, "-c", CHILD, str(spec)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert page_renderer.calls(log) == {42: {3: [(0, "drawn"), (1, "drawn")]}}
    finally:
        Path(log).unlink(missing_ok=True)


ALIASED = {  # the notebook's render_page under another name, bound when the handler is defined
    "an alias": "draw = render_page\n\ndef handler(task):\n    for page in range(task.data['pages']):\n"
                "        draw(task.data['booking_id'], page)\n",
    "a default argument": "def handler(task, draw=render_page):\n    for page in range(task.data['pages']):\n"
                          "        draw(task.data['booking_id'], page)\n",
    "a closure": "def make(draw):\n    def handler(task):\n        for page in range(task.data['pages']):\n"
                 "            draw(task.data['booking_id'], page)\n    return handler\n\nhandler = make(render_page)\n",
}


@pytest.mark.parametrize("way", ALIASED)
def test_in_a_child_render_page_under_another_name_is_the_renderer(tmp_path, way):
    """The renderer cannot rebind a name the handler holds, so the notebook's render_page function itself is
    rerouted to it in the child: every way the handler reaches that function draws through the renderer."""
    scope = {"__name__": "__notebook__"}
    exec("def render_page(booking_id, page):\n    raise AssertionError('not the renderer')\n\n" + ALIASED[way], scope)
    log = eventlog.new_file("course-test-pages-")
    try:
        spec = tmp_path / "spec.pkl"
        spec.write_bytes(cloudpickle.dumps(page_renderer.with_renderer(scope["handler"],
                                                                       page_renderer.Renderer(log, page_s=0))))
        done = subprocess.run([sys.executable, "-c", CHILD, str(spec)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert page_renderer.calls(log) == {42: {3: [(0, "drawn"), (1, "drawn")]}}
    finally:
        Path(log).unlink(missing_ok=True)

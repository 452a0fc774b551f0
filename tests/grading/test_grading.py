"""The learner's runtime (course.grading: check, hint, progress, run_check) — and, for every exercise in
the course, that its check fails on the lab's stub and passes on the solution. (The manifest, the stubs
and the build have tests of their own: test_manifest.py, test_stubs.py, tests/authoring/test_build.py.)"""

import json
import subprocess
import sys

import cloudpickle
import pytest

from course.grading import check, checks, hint, manifest, notebooks, run_check
from course.grading import progress_file as progress_module

from .rules_trace import rules_without_a_check

COURSE = manifest.load()
EXERCISES = [e.id for e in COURSE.exercises]


# -- every exercise: fails on the stub, passes on the solution ------------------------------------


@pytest.mark.parametrize("exercise_id", EXERCISES)
@pytest.mark.slow
def test_the_check_fails_on_the_lab_stub(exercise_id):
    lab = COURSE.lab(exercise_id.split(".")[0])
    report = run_check(exercise_id, **notebooks.load_answers(notebooks.ROOT / "labs" / lab.notebook, exercise_id))
    assert not report.passed and report.status == "not started", report.render()


@pytest.mark.parametrize("exercise_id", EXERCISES)
@pytest.mark.slow
def test_the_check_passes_on_the_solution(exercise_id):
    lab = COURSE.lab(exercise_id.split(".")[0])
    report = run_check(exercise_id, **notebooks.load_answers(notebooks.ROOT / "solutions" / lab.notebook, exercise_id))
    assert report.passed, report.render()
    # Each of the exercise's rules (labs.toml) names checks this report shows (tests/grading/test_rules_trace.py).
    unchecked = rules_without_a_check(COURSE.exercise(exercise_id), [result.name for result in report.results])
    assert not unchecked, "\n".join(unchecked)


CODE_EXERCISES = [e.id for e in COURSE.exercises if e.kind == "code" and e.lab_id != "14"]  # 14's answer: notebooks


@pytest.mark.parametrize("exercise_id", CODE_EXERCISES)
@pytest.mark.slow
def test_an_answer_that_does_nothing_passes_no_check(exercise_id):
    """Every answer a function that does nothing and returns None: it shows no effect, so no row may count it as
    passed (in class grading a row passed by nothing is a mark earned by nothing). Rows such an answer cannot
    fail are reported not judged until the answer has shown what they are about (Verdicts.not_shown). This one
    test covers every code exercise, present and future; the labs' own tests keep what they add to it."""
    def nothing(*args, **kwargs):
        return None

    report = run_check(exercise_id, seed=1, **{name: nothing for name in COURSE.exercise(exercise_id).answers})
    assert report.results and not any(r.passed for r in report.results), report.render()


# -- the two trees --------------------------------------------------------------------------------


def test_every_exercise_has_a_check_and_a_cell_in_both_trees():
    for lab in COURSE.labs:
        for tree in ("solutions", "labs"):
            cells = notebooks.exercise_cells(notebooks.ROOT / tree / lab.notebook)
            assert set(cells) == {e.id for e in lab.exercises}, f"{tree}/{lab.notebook}"
        for exercise in lab.exercises:
            assert callable(checks.find(exercise.id))


# -- what a learner sees --------------------------------------------------------------------------


def test_an_unknown_id_suggests_the_closest(capsys):
    check("00.frist_job")
    assert "Did you mean '00.first_job'?" in capsys.readouterr().out


def test_a_check_before_the_function_is_defined_says_so(capsys):
    check("00.first_job")  # nothing called enqueue_welcome in this module
    out = capsys.readouterr().out
    assert "`enqueue_welcome` is not defined yet" in out and "Traceback" not in out


def test_learner_code_that_raises_fails_the_check_without_stopping_the_notebook(capsys):
    def enqueue_welcome(conn, user_id):
        return {}["order_id"]

    check("00.first_job", enqueue_welcome=enqueue_welcome)
    out = capsys.readouterr().out
    assert "checks failed" in out and "KeyError: 'order_id'" in out and 'return {}["order_id"]' in out


def test_a_failure_shows_expected_got_and_the_smallest_example():
    from course.core import queue

    def enqueue_welcome(conn, user_id):
        return queue.enqueue(conn, "send_welcome_email", {"user": user_id})

    text = run_check("00.first_job", enqueue_welcome=enqueue_welcome).render()
    assert "expected: {'user_id': 7}" in text and "got:      {'user': 7}" in text
    assert "smallest failing example: an empty jobs table; then user 7 signs up" in text


def test_passing_says_these_checks_passed_never_everything_is_correct():
    from course.core import queue

    report = run_check("00.first_job", enqueue_welcome=lambda c, u: queue.enqueue(c, "send_welcome_email", {"user_id": u}))
    text = report.render()
    assert len(report.results) >= 6 and f"these {len(report.results)} checks passed" in text
    assert "correct" not in text.lower() and "all tests" not in text.lower()


def test_hints_come_one_at_a_time_then_stop_at_the_last(capsys):
    from course.grading import hints

    hints._shown.clear()
    texts = [hints.hint("00.first_job") for _ in range(4)]
    assert [t.split(":")[0] for t in texts] == ["Hint 1 of 3 for 00.first_job", "Hint 2 of 3 for 00.first_job",
                                               "Hint 3 of 3 for 00.first_job", "Hint 3 of 3 for 00.first_job"]
    assert "last one" in texts[-1]
    hint("no.such")
    assert "There is no exercise" in capsys.readouterr().out


def test_progress_remembers_a_pass_and_prints_a_table():
    progress_module.record("00.first_job", "passed", 6, 6)
    progress_module.record("00.first_job", "failed", 5, 6)  # a later failure does not erase the pass
    progress_module.record("00.quiz", "failed", 2, 3)
    state = json.loads(progress_module.state_file().read_text())
    assert state["00.first_job"]["passed_at"] and state["00.first_job"]["last"] == "failed"
    table = progress_module.table()
    assert "[✓] 00.first_job" in table and "[·] 00.quiz" in table
    assert f"1 of {len(EXERCISES)} exercises passed." in table


def test_two_checks_recording_at_once_lose_nothing_and_never_crash(tmp_path, monkeypatch):
    """Two `course check` runs in one checkout (a terminal and a notebook) record at the same time: each
    result is kept, and neither trips over the other's temporary file (they shared one name, and one run
    stopped on FileNotFoundError when the other had renamed it)."""
    import multiprocessing

    monkeypatch.setenv("COURSE_PROGRESS_FILE", str(tmp_path / "progress.json"))
    ids = [e.id for e in COURSE.exercises][:12]
    context = multiprocessing.get_context("fork")
    with context.Pool(4) as pool:
        pool.map(_record_many, [(exercise_id, 25) for exercise_id in ids])
    state = json.loads((tmp_path / "progress.json").read_text())
    assert sorted(state) == sorted(ids), f"lost: {sorted(set(ids) - set(state))}"
    assert not list(tmp_path.glob("*.tmp*")), "a temporary file left behind"


def _record_many(args):
    exercise_id, times = args
    for i in range(times):
        progress_module.record(exercise_id, "passed" if i % 2 else "failed", i, times)


def test_the_command_line_prints_progress_and_compares(capsys):
    from course.cli import main

    assert main(["progress", "00"]) == 0
    assert "00.first_job" in capsys.readouterr().out
    assert main(["compare", "00"]) == 0
    out = capsys.readouterr().out
    assert "YOUR CODE" in out or "your code" in out
    assert "not started" in out


def test_what_a_check_tells_is_printed_under_its_checks_whether_they_pass_or_fail():
    from course.grading.report import Report
    from course.grading.trial import Trial

    t = Trial("99.test")
    t.expect("a check", ok=True)
    t.tell("Tried 3 things: a right answer fails it less than once in 1,000,000 runs.")
    passed = Report("99.test", tuple(t.results), notes=tuple(t.notes)).render()
    t.expect("another", ok=False)
    failed = Report("99.test", tuple(t.results), notes=tuple(t.notes)).render()
    said = "Tried 3 things: a right answer fails it less than once in 1,000,000 runs."
    assert passed.splitlines()[-1] == said and said in failed.splitlines()


def test_an_answer_cell_that_defines_a_dataclass_loads_outside_jupyter():
    """`course check`, compare and the tests load answers outside Jupyter: the cells run as a module registered
    in sys.modules, as Jupyter's __main__ is, so a @dataclass in an answer cell loads (round f4: a correct
    12.booking_worker failed "could not load your answer (AttributeError ... @dataclass)")."""
    source = ("from dataclasses import dataclass\n@dataclass\nclass Welcome:\n    user_id: int\n"
              "def enqueue_welcome(conn, user_id):\n    return Welcome(user_id).user_id\n")
    answers = notebooks.answers_from([source], "00.first_job", "test")
    assert answers["enqueue_welcome"](None, 7) == 7
    # and it still travels by value to a worker process, which cannot import a notebook (12.checkout's API)
    shipped = cloudpickle.dumps(answers["enqueue_welcome"])
    code = "import pickle, sys; print(pickle.loads(sys.stdin.buffer.read())(None, 8))"
    ran = subprocess.run([sys.executable, "-c", code], input=shipped, capture_output=True, timeout=120)
    assert ran.stdout.strip() == b"8", ran.stderr.decode()


def test_a_check_that_stops_on_its_own_error_names_its_line_for_the_authors():
    """CI (stop 33) showed "it stopped on TimeoutError: nats: timeout" and no more: the check's own line
    it stopped at is what its authors need (the learner's line, when there is one, is named first)."""
    from course.grading import _crash
    from course.grading.checks.lab13 import publish_retry

    try:
        publish_retry.overshoot(None)  # any check's own bug
    except AttributeError as error:
        note = _crash(error).note
    assert "course/grading/checks/lab13/publish_retry.py:" in note and "reference.gaps" in note

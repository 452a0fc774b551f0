"""Every rule an exercise states is enforced and proven (issue 13): labs.toml lists each code exercise's
rules; each rule names the checks that enforce it and the wrong answers that break it; the notebooks show
the rules as the manifest lists them.

The third link — each rule's checks appear in the solution's check report — is asserted where that report
is made once per exercise: tests/grading/test_grading.py::test_the_check_passes_on_the_solution.

Quizzes are exempt: a quiz's "rules" are its questions, and each question is its own check already.
"""

import nbformat
import pytest

from course.grading import manifest, notebooks, stubs

from .rules_trace import rules_without_a_check, wrong_answer_problem

COURSE = manifest.load()
CODE = [exercise for exercise in COURSE.exercises if exercise.kind == "code"]

# Code exercises whose rules are not written yet. Empty when issue 13's point 1 is done; a lab listed here
# is a visible debt, not an exemption.
PENDING: set[str] = set()


@pytest.mark.parametrize("exercise", CODE, ids=lambda e: e.id)
def test_every_code_exercise_states_its_rules(exercise):
    if exercise.id in PENDING:
        pytest.xfail(f"{exercise.id}: rules not written yet (PENDING)")
    assert exercise.rules, f"{exercise.id} has no rules in labs.toml"


def test_pending_lists_only_exercises_without_rules():
    done = [exercise.id for exercise in CODE if exercise.id in PENDING and exercise.rules]
    assert not done, f"take these out of PENDING, they have rules now: {done}"


@pytest.mark.parametrize("exercise", [e for e in COURSE.exercises if e.rules], ids=lambda e: e.id)
def test_every_rule_has_a_wrong_answer_that_asserts_its_check_fails(exercise):
    problems = []
    for rule in exercise.rules:
        if not rule.wrong_answers:
            problems.append(f"{exercise.id} rule {rule.id!r} has no wrong answer")
        problems += filter(None, (wrong_answer_problem(exercise, rule, name) for name in rule.wrong_answers))
    assert not problems, "\n".join(problems)


def test_the_notebooks_show_each_exercises_rules_as_the_manifest_lists_them():
    for lab in COURSE.labs:
        for tree in ("solutions", "labs"):
            text = "\n".join(cell.source for cell in nbformat.read(notebooks.ROOT / tree / lab.notebook, as_version=4).cells
                             if cell.cell_type == "markdown")
            for exercise in lab.exercises:
                shown = text.count(f"<!-- BEGIN RULES {exercise.id} ")
                assert shown == (1 if exercise.rules else 0), f"{tree}/{lab.notebook}: {exercise.id}'s rules block"
                if exercise.rules:
                    assert stubs.rules_block(exercise) in text, (f"{tree}/{lab.notebook}: {exercise.id}'s rules "
                                                                 "differ from labs.toml: run `python -m course build`")


def test_a_rule_without_its_check_in_the_report_is_named():
    rule = manifest.Rule(id="no-wait", text="never wait", checks=["does not wait"], wrong_answers=())
    exercise = manifest.Exercise(id="03.claim", title="t", answers=(), hints=("h",), rules=(rule,))
    assert rules_without_a_check(exercise, ["does not wait for a row"]) == []
    assert rules_without_a_check(exercise, ["takes the oldest"]) == [
        "03.claim rule 'no-wait': no check in the report is named like 'does not wait'"]


def test_a_wrong_answer_that_is_missing_or_asserts_another_check_is_named():
    exercise = COURSE.exercise("03.claim")
    rule = manifest.Rule(id="x", text="x", checks=["no job is claimed twice"], wrong_answers=())
    assert wrong_answer_problem(exercise, rule, "test_a_claim_without_any_lock_hands_jobs_to_two_workers") is None
    assert "does not exist" in wrong_answer_problem(exercise, rule, "test_no_such_test")
    waits = "test_plain_for_update_waits_for_the_row_another_worker_is_claiming"  # asserts another check
    assert "asserts none" in wrong_answer_problem(exercise, rule, waits)
    batch_only = "test_a_limit_applied_in_python_leases_jobs_nobody_runs"  # checks 03.claim_batch, not 03.claim
    assert "never runs" in wrong_answer_problem(exercise, rule, batch_only)


def test_the_manifest_refuses_a_rule_without_a_check(tmp_path):
    bad = tmp_path / "labs.toml"
    bad.write_text('[[lab]]\nid = "00"\nslug = "a"\ntitle = "A"\n[[lab.exercise]]\nid = "00.x"\ntitle = "X"\n'
                   'hints = ["h"]\n[[lab.exercise.rules]]\nid = "r"\ntext = "a rule"\n')
    with pytest.raises(manifest.CourseError, match="at least one check"):
        manifest.load.__wrapped__(bad)


def test_the_build_rewrites_a_stale_rules_block_and_leaves_the_statement_alone():
    statement = "### Exercise 03.claim — claim\n\nWrite `claim`.\n\n"
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(statement + "<!-- BEGIN RULES 03.claim (old) -->\n1. a rule since dropped\n"
                                      "<!-- END RULES 03.claim -->"),
        nbformat.v4.new_code_cell("def claim(conn, lease_s): ...", metadata={"course": {"exercise": "03.claim"}}),
    ])
    source = stubs.with_rules(notebook, "test").cells[0].source
    assert source == statement + stubs.rules_block(COURSE.exercise("03.claim"))
    assert stubs.with_rules(notebook, "test").cells[0].source == source  # a second build changes nothing


def test_one_case_of_a_parametrized_wrong_answer_is_traced_by_its_own_row():
    exercise = COURSE.exercise("05.relay")
    rule = manifest.Rule(id="x", text="x", checks=["takes up to `limit` rows per call"], wrong_answers=())
    assert wrong_answer_problem(exercise, rule, "test_wrong_relays_fail[ignores_the_limit]") is None
    assert "asserts none" in wrong_answer_problem(exercise, rule, "test_wrong_relays_fail[newest_first]")
    assert "no parametrized case" in wrong_answer_problem(exercise, rule, "test_wrong_relays_fail[nope]")

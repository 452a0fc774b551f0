"""A proposal (issue 13), for lab 03: every rule of an exercise has a check that enforces it and a wrong
answer that breaks it and asserts that check fails. The rules live in
course/grading/proposals/lab03_rules.toml until labs.toml can carry them (that needs the notebooks
re-executed, to render the rules into each exercise's statement)."""

import inspect
import tomllib
from pathlib import Path

import pytest

from course.grading import build, notebooks, run_check

from . import test_wrong_answers_lab03 as wrong

PROPOSAL = Path(build.ROOT) / "course" / "grading" / "proposals" / "lab03_rules.toml"
EXERCISES = {e["id"]: e["rules"] for e in tomllib.loads(PROPOSAL.read_text())["exercise"]}


def test_rule_ids_are_unique_and_every_rule_names_a_check_and_a_wrong_answer():
    for exercise_id, rules in EXERCISES.items():
        ids = [rule["id"] for rule in rules]
        assert len(ids) == len(set(ids)), exercise_id
        for rule in rules:
            assert rule["text"] and rule["checks"], f"{exercise_id} {rule['id']} has no check"
            assert rule["wrong_answers"], f"{exercise_id} {rule['id']} has no wrong answer"


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_every_rule_has_a_check_the_report_shows(exercise_id):
    answers = notebooks.load_answers(build.ROOT / "solutions" / "03_postgres_queue.ipynb", exercise_id)
    names = [result.name for result in run_check(exercise_id, **answers).results]
    for rule in EXERCISES[exercise_id]:
        for fragment in rule["checks"]:
            assert any(fragment in name for name in names), f"{exercise_id} {rule['id']}: no check {fragment!r}"


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_every_rule_has_a_wrong_answer_that_asserts_its_check(exercise_id):
    """The wrong answers run on their own in test_wrong_answers_lab03.py; here: each exists, and asserts a
    failure of one of its rule's checks (so it fails for that rule's reason)."""
    for rule in EXERCISES[exercise_id]:
        for name in rule["wrong_answers"]:
            test = getattr(wrong, name, None)
            assert callable(test), f"{exercise_id} {rule['id']}: tests/test_wrong_answers_lab03.py has no {name}"
            source = inspect.getsource(test)
            assert exercise_id in source, f"{name} does not run {exercise_id}'s check"
            assert any(fragment in source for fragment in rule["checks"]), \
                f"{name} asserts none of {rule['id']}'s checks {rule['checks']}"

"""What ties an exercise's rules (labs.toml) to the checks that enforce them and to the wrong answers
that prove those checks can fail: read by tests/test_rules_trace.py and, on the one run of each
solution's check, by tests/test_grading.py."""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache

from course.grading import manifest

EXERCISE_ID = re.compile(r"\d\d\.[a-z][a-z0-9_]*")


def rules_without_a_check(exercise: manifest.Exercise, check_names: list[str]) -> list[str]:
    """Each rule fragment that names no check of `check_names` (the solution's report), as a sentence."""
    return [f"{exercise.id} rule {rule.id!r}: no check in the report is named like {fragment!r}"
            for rule in exercise.rules for fragment in rule.checks
            if not any(fragment in name for name in check_names)]


@cache
def _module(lab_id: str):
    module = importlib.import_module(f"tests.test_wrong_answers_lab{lab_id}")
    tree = ast.parse(open(module.__file__).read())
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _reach(functions: dict, name: str) -> list[ast.FunctionDef]:
    """The test function and the module-level helpers it calls (and they call), once each."""
    seen, todo = {}, [name]
    while todo:
        current = todo.pop()
        if current in seen or current not in functions:
            continue
        seen[current] = functions[current]
        todo += [node.func.id for node in ast.walk(functions[current])
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    return list(seen.values())


def _strings(nodes) -> list[str]:
    return [node.value for tree in nodes for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def _same_check(fragment: str, text: str) -> bool:
    """Whether a string the test asserts with names the check `fragment` names: the one holds the other
    (a test may assert a shorter piece of the name; pieces under 15 characters are too common to count)."""
    return fragment in text or (len(text) >= 15 and text in fragment)


def wrong_answer_problem(exercise: manifest.Exercise, rule: manifest.Rule, test_name: str) -> str | None:
    """Why `test_name` does not prove `rule` can fail, or None when it does: the test must exist in the
    lab's wrong-answer file, run this exercise's check (itself or through a helper it calls), and name
    one of the rule's checks in a string it asserts with (its own source or its parameters, not a helper's:
    a helper's string is shared by every test that calls it)."""
    functions = _module(exercise.lab_id)
    where = f"{exercise.id} rule {rule.id!r}: tests/test_wrong_answers_lab{exercise.lab_id}.py::{test_name}"
    if test_name not in functions:
        return f"{where} does not exist"
    if exercise.id not in _strings(_reach(functions, test_name)):
        return f"{where} never runs check({exercise.id!r})"
    own = _strings([functions[test_name]])
    if not any(_same_check(fragment, text) for fragment in rule.checks for text in own):
        return f"{where} asserts none of the rule's checks {list(rule.checks)} among its failures"
    return None

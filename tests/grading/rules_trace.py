"""What ties an exercise's rules (labs.toml) to the checks that enforce them and to the wrong answers
that prove those checks can fail: read by tests/grading/test_rules_trace.py and, on the one run of each
solution's check, by tests/grading/test_grading.py."""

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
def _tree(lab_id: str) -> ast.Module:
    module = importlib.import_module(f"tests.grading.checks.test_lab{lab_id}")
    return ast.parse(open(module.__file__).read())


def _module(lab_id: str) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in _tree(lab_id).body if isinstance(node, ast.FunctionDef)}


def _tables(lab_id: str) -> dict[str, ast.Dict]:
    """Module-level dicts of wrong answers (NAME = {"case": (answer, "the check it fails"), ...})."""
    return {target.id: node.value for node in _tree(lab_id).body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Dict) for target in node.targets if isinstance(target, ast.Name)}


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


def _strings(nodes, constants: dict[str, str] | None = None) -> list[str]:
    """The string literals in these trees, and the values of the module's string constants they name
    (a wrong-answer table may say JITTER for "full jitter: ...")."""
    found = []
    for tree in nodes:
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append(node.value)
            elif isinstance(node, ast.Name) and constants and node.id in constants:
                found.append(constants[node.id])
    return found


def _constants(lab_id: str) -> dict[str, str]:
    """Module-level NAME = "a string" assignments of the lab's wrong-answer file."""
    return {target.id: node.value.value for node in _tree(lab_id).body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)}


def _same_check(fragment: str, text: str) -> bool:
    """Whether a string the test asserts with names the check `fragment` names: the one holds the other
    (a test may assert a shorter piece of the name; pieces under 15 characters are too common to count)."""
    return fragment in text or (len(text) >= 15 and text in fragment)


def _case(function: ast.FunctionDef, case: str, tables: dict[str, ast.Dict]) -> ast.AST | None:
    """The parameters of one case of a parametrized test: the tuple whose first value is named `case`
    (a function of that name, or the string itself),
    or, when the test is parametrized by a module-level dict's keys, that dict's entry for `case`."""
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", "") == "parametrize"
                and len(decorator.args) > 1):
            continue
        values = decorator.args[1]
        if isinstance(values, ast.Name) and values.id in tables:
            table = tables[values.id]
            for key, value in zip(table.keys, table.values):
                if isinstance(key, ast.Constant) and key.value == case:
                    return value
        for row in getattr(values, "elts", []):
            first = row.elts[0] if isinstance(row, ast.Tuple) and row.elts else None
            if (isinstance(first, ast.Name) and first.id == case) or (
                    isinstance(first, ast.Constant) and first.value == case):
                return row
    return None


def wrong_answer_problem(exercise: manifest.Exercise, rule: manifest.Rule, test_name: str) -> str | None:
    """Why `test_name` does not prove `rule` can fail, or None when it does: the test must exist in the
    lab's wrong-answer file, run this exercise's check (itself or through a helper it calls), and name
    one of the rule's checks in a string it asserts with (its own source, not a helper's: a helper's
    string is shared by every test that calls it). `test_x[case]` names one case of a parametrized test,
    the row whose first value is the wrong answer `case` (or the entry `case` of the dict it is
    parametrized by); the check must be named in that row."""
    functions = _module(exercise.lab_id)
    where = f"{exercise.id} rule {rule.id!r}: tests/grading/checks/test_lab{exercise.lab_id}.py::{test_name}"
    function_name, _, case = test_name.partition("[")
    if function_name not in functions:
        return f"{where} does not exist"
    if exercise.id not in _strings(_reach(functions, function_name)):
        return f"{where} never runs check({exercise.id!r})"
    asserted = functions[function_name]
    if case:
        asserted = _case(asserted, case.rstrip("]"), _tables(exercise.lab_id))
        if asserted is None:
            return f"{where}: the test has no parametrized case {case.rstrip(']')!r}"
    own = _strings([asserted], _constants(exercise.lab_id))
    if not any(_same_check(fragment, text) for fragment in rule.checks for text in own):
        return f"{where} asserts none of the rule's checks {list(rule.checks)} among its failures"
    return None

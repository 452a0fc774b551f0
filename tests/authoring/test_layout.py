"""The tree shows the layers, and holds to them (course/authoring/layout.py says what they are):

- a module imports only its own layer or lower ones, never relatively;
- labs.toml names every file a lab is made of (its modules, SQL, checks and tests), as computed from the
  sources, and every course.programs module belongs to a lab: from a lab to its code is one hop;
- a notebook and a lab's checks use only their own lab's programs, and notebooks only public modules;
- a module over MAX_LINES lines says in its docstring, in a "Why one module:" paragraph, what its one
  idea is (a lab's checks excepted: their idea is that lab), and none is over HARD_LIMIT;
- `python -m course map` imports no database driver.

Each rule is a function returning what breaks it, tried here on the real tree and on a made-up breach.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import course.grading
from course.authoring import layout
from course.grading import manifest, notebooks

ROOT = layout.ROOT
LABS = manifest.load().labs
PUBLIC_LAYERS = {"errors", "infra", "core"}
MAX_LINES = 400  # longer, and a module says in its docstring why it is one idea
HARD_LIMIT = 600  # longer, and it is two ideas, whatever its docstring says
LAB_CHECKS = re.compile(r"course\.grading\.checks\.lab\d\d(\.[a-z_]+)?")  # a lab's checks: a module or a package
# Modules over HARD_LIMIT whose split is under way elsewhere: each must still be over it (or leave here).
SPLIT_UNDER_WAY: dict[str, str] = {}


def upward_imports(module: str, source: str) -> list[str]:
    """The imports in `module`'s source that reach a higher layer, or are relative."""
    here = layout.RANK[layout.layer_of(module)]
    wrong = []
    for imp in layout.imports_in(source):
        if imp.relative:
            wrong.append(f"{module} line {imp.line}: relative import of {imp.module!r} (write it absolute)")
        elif layout.RANK[layout.layer_of(imp.module)] > here:
            wrong.append(f"{module} line {imp.line}: imports {imp.module} ({layout.layer_of(imp.module)}), "
                         f"a layer above {layout.layer_of(module)}")
    return wrong


def notebook_breaches(lab: manifest.Lab, source: str) -> list[str]:
    """Imports a lab's notebook may not make: internals, evidence, another lab's programs."""
    wrong = []
    for imp in layout.imports_in(source):
        layer = layout.layer_of(imp.module) if not imp.relative else "relative"
        if layer in PUBLIC_LAYERS:
            continue
        if layer == "programs" and imp.module in lab.modules:
            continue
        if imp.module == "course.grading" and set(imp.names) <= set(course.grading.__all__):
            continue
        if imp.names and imp.module == f"course.grading.{imp.names[0]}" and imp.names[0] in course.grading.__all__:
            continue  # `from course.grading import faults`: a submodule the package exports
        wrong.append(f"lab {lab.id} line {imp.line}: imports {imp.module} {list(imp.names)}"
                     + (" (not in its labs.toml modules)" if layer == "programs" else " (not public)"))
    return wrong


def too_long_without_a_reason(module: str, source: str) -> list[str]:
    """A module over MAX_LINES lines whose docstring has no "Why one module:" paragraph. A lab's checks
    (course.grading.checks.labNN) need none: their one idea is given by where they are, that lab's
    exercises judged, and the length rule's ceiling (HARD_LIMIT) still holds them."""
    lines = len(source.splitlines())
    if lines <= MAX_LINES or LAB_CHECKS.fullmatch(module):
        return []
    doc = ast.get_docstring(ast.parse(source)) or ""
    if any(paragraph.startswith("Why one module: ") for paragraph in doc.split("\n\n")):
        return []
    return [f"{module}: {lines} lines, and its docstring has no 'Why one module:' paragraph saying what its "
            f"one idea is: split it along a real seam, or say why it is one"]


def module_source(module: str) -> str:
    path = ROOT / Path(*module.split("."))
    return (path / "__init__.py" if path.is_dir() else path.with_suffix(".py")).read_text()


def test_no_module_imports_a_higher_layer():
    wrong = [w for m in layout.modules() for w in upward_imports(m, module_source(m))]
    assert not wrong, "\n".join(wrong)


def test_the_layer_rule_catches_an_upward_and_a_relative_import():
    assert upward_imports("course.core.queue", "from course.programs import tiffin\n")
    assert upward_imports("course.infra.db", "def f():\n    from course.core.queue import enqueue\n")
    assert upward_imports("course.core.queue", "from .backoff import backoff_delay\n")
    assert not upward_imports("course.core.worker", "from course.infra import db\nfrom course.core import queue\n")


def test_a_long_module_says_why_it_is_one():
    wrong = [w for m in layout.modules() for w in too_long_without_a_reason(m, module_source(m))]
    assert not wrong, "\n".join(wrong)


def test_no_module_is_over_the_hard_limit():
    lengths = {m: len(module_source(m).splitlines()) for m in layout.modules()}
    over = {m: n for m, n in lengths.items() if n > HARD_LIMIT}
    assert sorted(set(over) - set(SPLIT_UNDER_WAY)) == [], f"over {HARD_LIMIT} lines: {over}"
    assert sorted(set(SPLIT_UNDER_WAY) - set(over)) == [], "split already: take it off SPLIT_UNDER_WAY"


def test_a_labs_checks_need_no_reason_but_other_long_modules_do():
    body = "x = 1\n" * (MAX_LINES + 1)
    assert not too_long_without_a_reason("course.grading.checks.lab05", f'"""Lab 05: its checks."""\n{body}')
    assert not too_long_without_a_reason("course.grading.checks.lab05.relay", f'"""05.relay: its check."""\n{body}')
    assert too_long_without_a_reason("course.grading.checks.shared", f'"""Shared checks."""\n{body}')
    assert too_long_without_a_reason("course.grading.checks.lab05_helpers", f'"""Helpers."""\n{body}')


def test_the_length_rule_catches_a_long_module_without_its_reason():
    body = "x = 1\n" * (MAX_LINES + 1)
    assert too_long_without_a_reason("course.core.big", f'"""A big module."""\n{body}')
    assert too_long_without_a_reason("course.core.big", f'"""Why one module is not said here."""\n{body}')
    assert too_long_without_a_reason("course.core.big", body)
    assert not too_long_without_a_reason("course.core.big", f'"""A big module.\n\nWhy one module: one idea.\n"""\n{body}')
    assert not too_long_without_a_reason("course.core.small", '"""A small module."""\nx = 1\n')


def test_every_programs_module_belongs_to_a_lab():
    owners = layout.owners()
    programs = [m for m in layout.modules() if layout.layer_of(m) == "programs" and m != "course.programs"]
    assert [m for m in programs if m not in owners] == []


def test_the_labs_list_only_real_modules_and_files():
    known = set(layout.modules())
    for lab in LABS:
        assert set(lab.modules) <= known, (lab.id, sorted(set(lab.modules) - known))
        for path in (*lab.sql, *lab.tests):
            assert (ROOT / path).is_file(), (lab.id, path)
        assert (ROOT / lab.checks).is_file() or (ROOT / lab.checks / "__init__.py").is_file(), (lab.id, lab.checks)


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_labs_toml_names_every_file_a_lab_is_made_of(lab):
    """Computed from the sources (what the notebook and checks import, what those show or run), so the
    list cannot rot: a lab that starts using a module, an SQL file or a test fails here until listed."""
    listed = layout.LabParts(lab.modules, lab.sql, lab.checks, lab.tests)
    assert listed == layout.whole_lab(lab), f"lab {lab.id}: update its [[lab]] in course/grading/labs.toml"


def test_a_lab_is_its_imports_and_their_sql():
    lab03 = manifest.load().lab("03")
    parts = layout.whole_lab(lab03)
    assert "course.core.queue" in parts.modules and "course/core/sql/queue.sql" in parts.sql
    assert parts.checks == "course/grading/checks/lab03" and parts.tests[0] == "tests/grading/checks/test_lab03.py"
    assert layout._sql_names('sql.show("tiffin", "schema")\nlab_sql.query("lab06", "tables")\nshow("x", "y")\n') \
        == {"tiffin", "lab06"}
    assert layout._sql_names('"""sql.show("tiffin", "schema") in a docstring"""\n') == set()


@pytest.mark.parametrize("folder", ["solutions", "labs"])
@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_a_notebook_imports_only_public_modules_and_its_own_labs_programs(lab, folder):
    source = notebooks.python_source(ROOT / folder / lab.notebook)
    assert notebook_breaches(lab, source) == []


def test_the_notebook_rule_catches_internals_and_another_labs_programs():
    lab03 = manifest.load().lab("03")
    assert notebook_breaches(lab03, "from course.grading.scratch import ScratchSchema\n")
    assert notebook_breaches(lab03, "from course.evidence.benchmarks import measure\n")
    assert notebook_breaches(lab03, "from course.programs import stayhub\n")
    assert notebook_breaches(lab03, "from course.grading import trial\n")
    assert notebook_breaches(lab03, "import course.grading.faults\n")
    assert not notebook_breaches(lab03, "from course.core import queue\nfrom course.grading import check, hint\n")


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_a_labs_checks_use_only_its_own_programs(lab):
    source = layout.checks_source(lab.id)
    used = {i.module for i in layout.imports_in(source) if layout.layer_of(i.module) == "programs"}
    assert used <= set(lab.modules), f"lab {lab.id}'s checks use {sorted(used - set(lab.modules))}"


def test_the_map_names_every_lab_and_layer():
    text = layout.map_text()
    for name, prefix, _ in layout.LAYERS:
        assert prefix.replace(".", "/") in text
    for lab in LABS:
        assert lab.notebook in text and lab.checks in text and all(path in text for path in lab.sql)


def test_the_map_imports_no_database_driver():
    """`python -m course map` reads labs.toml and the tree, nothing more: it must not import psycopg (the
    learner's runtime in course.grading imports its database side on first use)."""
    probe = ("import sys\nfrom course.cli import main\nassert main(['map']) == 0\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'psycopg'))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout[-400:]

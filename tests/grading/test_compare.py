"""The learner's own loop from the terminal: `python -m course --help` lists every command, `compare 03
[NOTEBOOK]` reads the notebook named and says when labs/NN is untouched but a newer copy exists, and
`check 03 [NOTEBOOK]` runs a lab's checks on the saved notebook, exiting non-zero when any fails."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from course import cli
from course.grading import compare, manifest, notebooks

ROOT = notebooks.ROOT
LAB00 = manifest.load().lab("00").notebook


def copy(tree: str, to: Path, *, later_s: float = 0) -> Path:
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / tree / LAB00, to)
    if later_s:
        stamp = to.stat().st_mtime + later_s
        os.utime(to, (stamp, stamp))
    return to


def run(argv, capsys) -> tuple[int, str]:
    code = cli.main(argv)
    return code, capsys.readouterr().out


def test_the_top_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    for name in ["db", "lab", "worker", *cli.MODULE_COMMANDS]:
        assert f"\n    {name} " in text, f"{name} is missing from --help:\n{text}"
    for name in ("check", "grade", "progress", "compare", "build", "scheduler", "broker", "bench", "chaos"):
        assert name in cli.MODULE_COMMANDS


def test_every_module_command_answers_help(capsys):
    for name in cli.MODULE_COMMANDS:
        with pytest.raises(SystemExit) as stop:
            cli.main([name, "--help"])
        assert stop.value.code == 0, name
        assert "usage: python -m course" in capsys.readouterr().out, name


def test_compare_help_is_complete(capsys):
    with pytest.raises(SystemExit):
        cli.main(["compare", "--help"])
    text = capsys.readouterr().out
    for words in ("lab", "notebook", "--no-run", "labs/NN_*.ipynb", "setup cells", "newer", "Copy1"):
        assert words in text, words


def test_compare_reads_the_notebook_it_is_given_and_runs_the_checks_on_it(tmp_path, capsys, database):
    mine = copy("solutions", tmp_path / "mine.ipynb")
    code, out = run(["compare", "00", str(mine)], capsys)
    assert code == 0
    assert "YOUR CODE (mine.ipynb)" in out or "your code (mine.ipynb)" in out
    assert "checks on your code: 00.first_job: this check passed" in out or \
        "checks on your code: 00.first_job: these" in out
    assert "not started" not in out and "Note:" not in out


def test_compare_says_when_the_notebook_is_untouched_but_a_newer_copy_is_beside_it(tmp_path, capsys):
    stub = copy("labs", tmp_path / LAB00)
    newer = copy("solutions", tmp_path / LAB00.replace(".ipynb", "-Copy1.ipynb"), later_s=60)
    code, out = run(["compare", "00", str(stub), "--no-run"], capsys)
    assert code == 0 and "is untouched" in out and newer.name in out
    assert f"python -m course compare 00 " in out
    # the copy itself is not untouched: nothing to say
    code, out = run(["compare", "00", str(newer), "--no-run"], capsys)
    assert "Note:" not in out


def test_an_older_copy_or_an_edited_lab_draws_no_warning(tmp_path, capsys):
    stub = copy("labs", tmp_path / LAB00, later_s=60)
    copy("solutions", tmp_path / "00_start_here-Copy1.ipynb")  # older than the lab
    assert "Note:" not in run(["compare", "00", str(stub), "--no-run"], capsys)[1]
    edited = nbformat.read(stub, as_version=4)
    for cell in edited.cells:
        if notebooks.exercise_of(cell) == "00.quiz":
            cell.source = 'q1 = "a"\nq2 = ...\nq3 = ...\n'
    nbformat.write(edited, stub)
    copy("solutions", tmp_path / "00_start_here-Copy2.ipynb", later_s=600)
    assert "Note:" not in run(["compare", "00", str(stub), "--no-run"], capsys)[1]


def test_compare_finds_a_newer_copy_elsewhere_in_labs(tmp_path, capsys, monkeypatch):
    root = tmp_path / "checkout"
    (root).mkdir()
    (root / "solutions").symlink_to(ROOT / "solutions")
    copy("labs", root / "labs" / LAB00)
    elsewhere = copy("solutions", root / "labs" / "mine" / "00_start_here.ipynb", later_s=60)
    monkeypatch.setattr(compare, "LABS", root / "labs")
    code, out = run(["compare", "00", "--no-run"], capsys)
    assert code == 0 and "is untouched" in out and str(elsewhere.relative_to(root)) in out


def test_compare_of_a_missing_notebook_says_so(tmp_path, capsys):
    assert cli.main(["compare", "00", str(tmp_path / "nope.ipynb")]) == 2
    assert "There is no notebook" in capsys.readouterr().err


def test_check_passes_on_a_solved_notebook_and_records_progress(tmp_path, capsys, database):
    mine = copy("solutions", tmp_path / LAB00)
    code, out = run(["check", "00", str(mine)], capsys)
    assert code == 0, out
    assert "00.first_job: th" in out and "00.quiz: th" in out and "2 of 2 exercises passed" in out
    state = json.loads(Path(os.environ["COURSE_PROGRESS_FILE"]).read_text())
    assert state["00.first_job"]["last"] == "passed" and state["00.quiz"]["last"] == "passed"


def test_check_fails_with_a_nonzero_exit_on_a_stub_and_says_what_to_do(tmp_path, capsys, database):
    mine = copy("labs", tmp_path / LAB00)
    code, out = run(["check", "00", str(mine)], capsys)
    assert code == 1
    assert "00.first_job: not started" in out and "0 of 2 exercises passed" in out


def test_check_reports_a_wrong_answer_and_a_cell_that_cannot_load(tmp_path, capsys, database):
    nb = nbformat.read(ROOT / "solutions" / LAB00, as_version=4)
    for cell in nb.cells:
        if notebooks.exercise_of(cell) == "00.quiz":
            cell.source = cell.source.replace('q1 = "b"', 'q1 = "a"')
        if notebooks.exercise_of(cell) == "00.first_job":
            cell.source = "def broken(:\n" + cell.source
    nbformat.write(nb, tmp_path / LAB00)
    code, out = run(["check", "00", str(tmp_path / LAB00)], capsys)
    assert code == 1
    assert "00.first_job: could not load your answer (SyntaxError" in out
    assert "00.quiz: 1 of 3 checks failed" in out and "0 of 2 exercises passed" in out


def test_check_one_exercise(tmp_path, capsys, database):
    mine = copy("solutions", tmp_path / LAB00)
    code, out = run(["check", "00.quiz", str(mine)], capsys)
    assert code == 0 and "1 of 1 exercises passed: 00.quiz passed" in out


def test_check_warns_about_a_newer_copy_too(tmp_path, capsys, database):
    stub = copy("labs", tmp_path / LAB00)
    copy("solutions", tmp_path / "00_start_here-Copy1.ipynb", later_s=60)
    code, out = run(["check", "00", str(stub)], capsys)
    assert code == 1 and "is untouched" in out and "python -m course check 00" in out

"""Lab 14 graded like every lab: `course check 14` and `course grade` on a learner's folder of notebooks.
The exam loads its pieces from the notebooks beside the lab's (03, 04, 07), so each test lays out such a
folder: the lab's own notebooks untouched, the solutions' notebooks, or those with one wrong piece."""

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from course.grading import grade, notebooks
from course.grading.compare import check_main
from course.infra import processes
from course.infra.pgserver import EmbeddedPostgres
from course.infra.private_server import OWNER

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500), pytest.mark.xdist_group("lab14_graded")]  # one exam at a time: each is minutes of load

PIECE_LABS = ("03_postgres_queue.ipynb", "04_leases.ipynb", "07_retries_dead_letters.ipynb")
EXAM = "14_final_exam.ipynb"
ACK_BY_ID = ("04_leases.ipynb", "04.fenced_ack",  # it acks, and never raises: only a stale ack shows it wrong
             lambda source: source.replace('"DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, lease_token]',
                                           '"DELETE FROM jobs WHERE id = %s", [job_id]'))


def learner_folder(folder, source=notebooks.SOLUTIONS, wrong=None):
    """The lab 14 notebook as handed out, beside the piece labs' notebooks from `source`, one exercise
    cell changed by `wrong` = (notebook, exercise, edit)."""
    folder.mkdir(parents=True)
    shutil.copy(notebooks.ROOT / "labs" / EXAM, folder / EXAM)
    for name in PIECE_LABS:
        shutil.copy(source / name, folder / name)
    if wrong is not None:
        name, exercise_id, edit = wrong
        nb = nbformat.read(folder / name, as_version=4)
        cell = next(c for c in nb.cells if c.cell_type == "code" and notebooks.exercise_of(c) == exercise_id)
        changed = edit(cell.source)
        assert changed != cell.source, "the wrong piece's edit matched nothing"
        cell.source = changed
        nbformat.write(nb, folder / name)
    return folder / EXAM


def test_course_check_14_on_untouched_notebooks_names_each_missing_piece(tmp_path, capsys):
    path = learner_folder(tmp_path / "me", source=notebooks.ROOT / "labs")
    assert check_main(["14", str(path)]) == 1
    said = capsys.readouterr().out
    for piece in ("03.claim", "03.claim_batch", "04.fenced_ack", "04.heartbeat", "07.route", "07.backoff"):
        assert f"{piece} (" in said and "still has the lab's stub" in said, said


def test_course_check_14_passes_with_the_solutions_pieces(tmp_path, capsys):
    path = learner_folder(tmp_path / "me")
    code = check_main(["14", str(path), "--seed", "14"])
    said = capsys.readouterr().out
    assert code == 0 and "14.exam: these" in said, said


def test_course_check_14_with_an_ack_by_id_alone_fails_naming_04_fenced_ack(tmp_path, capsys):
    path = learner_folder(tmp_path / "me", wrong=ACK_BY_ID)
    assert check_main(["14", str(path), "--seed", "14"]) == 1
    said = capsys.readouterr().out
    assert "✗ your 04.fenced_ack deletes the job only while the lease is ours" in said, said
    assert "-> your 04.fenced_ack" in said, said


def _orphaned_exam_servers(before: set[Path]) -> list[str]:
    """Exam PostgreSQLs made since `before` that still run though the process that started them is gone."""
    left = []
    for home in set(Path("/tmp").glob("exam-*")) - before:
        try:
            owner = json.loads((home / OWNER).read_text())["pid"]
        except (OSError, ValueError, KeyError):
            continue
        postmaster = EmbeddedPostgres(home).postmaster_pid()
        if not processes.pid_alive(owner) and processes.pid_alive(postmaster):
            left.append(f"{home} (postmaster {postmaster})")
    return left


def test_course_grade_grades_lab_14_from_each_students_folder(tmp_path):
    """The class grader grades each student's exam from the notebooks of 03, 04 and 07 in their folder:
    each piece runs in an answer host of its own and the exam's workers in the notebook's sandbox, on the
    run's own PostgreSQL as a role that is not its superuser; the verdicts are the checker's. The solutions
    pass; an ack by id alone fails, naming 04.fenced_ack; stubs are not started, named; nothing is left."""
    learner_folder(tmp_path / "class" / "ana")
    learner_folder(tmp_path / "class" / "ben", wrong=ACK_BY_ID)
    learner_folder(tmp_path / "class" / "cai", source=notebooks.ROOT / "labs")
    before = set(Path("/tmp").glob("exam-*"))
    graded = grade.grade(tmp_path / "class", tmp_path / "out", jobs=2, labs=["14"], seed=14, progress=False)
    rows = graded.rows
    exam = {r.student: r for r in rows if r.exercise == "14.exam"}
    said = "\n".join(f"{r.student} {r.exercise}: {r.status} {r.first_failing} {r.detail}" for r in rows)
    assert set(exam) == {"ana", "ben", "cai"}, said
    assert exam["ana"].status == "passed", said
    assert exam["ben"].status == "failed", said
    assert "your 04.fenced_ack deletes the job only while the lease is ours" in [f["name"] for f in exam["ben"].failing], said
    assert "-> your 04.fenced_ack" in exam["ben"].report, said
    assert not any("raising" in f["name"] for f in exam["ben"].failing), said
    assert exam["cai"].status == "not started" and "03.claim_batch" in exam["cai"].detail, said
    assert "still has the lab's stub" in exam["cai"].detail, said
    assert graded.exit_status == 0, said
    assert not [flag for flag in graded.run.flags if "running" in flag[1] or "left" in flag[1]], graded.run.flags
    assert not _orphaned_exam_servers(before)

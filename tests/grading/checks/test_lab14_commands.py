"""Lab 14 graded like every lab: `course check 14` and `course grade` on a learner's folder of notebooks.
The exam loads its pieces from the notebooks beside the lab's (03, 04, 07), so each test lays out such a
folder: the lab's own notebooks untouched, the solutions' notebooks, or those with one wrong piece."""

import shutil

import nbformat
import pytest

from course.grading import grade, notebooks
from course.grading.compare import check_main

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

PIECE_LABS = ("03_postgres_queue.ipynb", "04_leases.ipynb", "07_retries_dead_letters.ipynb")
EXAM = "14_final_exam.ipynb"
ACK_BY_ID = ("04_leases.ipynb", "04.fenced_ack",
             lambda source: source.replace("WHERE id = %s AND lease_token = %s", "WHERE id = %s"))


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


def _graded_class(tmp_path):
    learner_folder(tmp_path / "class" / "ana")
    learner_folder(tmp_path / "class" / "ben", wrong=ACK_BY_ID)
    learner_folder(tmp_path / "class" / "cai", source=notebooks.ROOT / "labs")
    rows = grade.grade(tmp_path / "class", tmp_path / "out", jobs=2, timeout_s=900, labs=["14"], seed=14,
                       progress=False).rows
    exam = {r.student: r for r in rows if r.exercise == "14.exam"}
    said = "\n".join(f"{r.student} {r.exercise}: {r.status} {r.first_failing} {r.detail}" for r in rows)
    assert set(exam) == {"ana", "ben", "cai"}, said
    return exam, said


def test_course_grade_says_it_does_not_grade_lab_14_rather_than_failing_a_correct_exam(tmp_path):
    """The class grader's checker holds only the exam notebook's own data: the exam's workers would run
    pieces of the student's other notebooks, which no sandbox holds yet. Until one does, every row says so
    and points to `course check 14`, and no correct exam is graded failed (ana's was, before)."""
    exam, said = _graded_class(tmp_path)
    for row in exam.values():
        assert row.status == "problem", said
        assert "course check 14" in row.detail, said


@pytest.mark.xfail(strict=True, reason="issue 26/23: the exam's workers run the student's pieces, which the "
                                       "class grader's sandbox does not hold yet (the row says 'problem')")
def test_course_grade_grades_lab_14_from_each_students_folder(tmp_path):
    exam, said = _graded_class(tmp_path)
    assert exam["ana"].status == "passed", said
    assert exam["ben"].status == "failed" and "04.fenced_ack" in exam["ben"].first_failing, said
    assert exam["cai"].status == "not started" and "03.claim_batch" in exam["cai"].detail, said

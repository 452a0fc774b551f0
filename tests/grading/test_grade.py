"""`python -m course grade`: a class of generated submissions — right answers, the wrong answers of the
wrong-answer tests, stubs, broken files, hanging and hostile cells — each gets the row it deserves, the
run completes, and no submission harms the database, another student or the instructor's progress."""

from __future__ import annotations

import csv
import json
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from psycopg import sql

from course.infra import db, processes
from course.grading import checker, confine, grade, gradebook, manifest, notebooks, roles, submissions
from course.grading.notebooks import exercise_of

ROOT = notebooks.ROOT
COURSE = manifest.load()

# Wrong answers, written into the lab notebook's exercise cell as a learner would (the same ones
# tests/grading/checks/test_lab03/07/09.py give to run_check), with the failure each must show.
PLAIN_FOR_UPDATE = ("03.claim", lambda source: source.replace("FOR UPDATE SKIP LOCKED", "FOR UPDATE"),
                    "does not wait for a row another worker is claiming")
NO_JITTER = ("07.backoff", lambda source: source.replace("return rng.uniform(0, ceiling)", "return ceiling"),
             "full jitter")
ALL_URGENT = ("09.route", lambda source: source.replace(
    "queue_name = URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK", "queue_name = URGENT"),
    "each job type goes to the queue its impact calls for")
DEFAULT_PRIORITY = ("09.newsletter", lambda source: source.replace(", priority=NEWSLETTER_PRIORITY", ""),
                    "is claimed first")
WRONG_QUIZ = ("00.quiz", lambda source: source.replace('q1 = "b"', 'q1 = "a"'), "q1")

HANG = "import time\nwhile True:\n    time.sleep(1)\n"
EXIT = "import os\nos._exit(3)\n"
KILL_PARENT = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
DROP_PUBLIC = "from course.infra import db as _db\n_db.connect().execute('DROP SCHEMA public CASCADE')\n"
DROP_EVERYTHING = """\
from course.infra import db as _db
_dropped = []
with _db.connect() as _c:
    for (_name,) in _c.execute("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg%%' "
                               "AND nspname <> 'information_schema'").fetchall():
        try:
            _c.execute(f'DROP SCHEMA "{_name}" CASCADE')
            _dropped.append(_name)
        except Exception:
            pass
"""


def kills_its_worker(source: str) -> str:
    """The right send_receipt, except that in a worker process it ends the process under every job."""
    return source.replace("    # BEGIN SOLUTION\n", "    # BEGIN SOLUTION\n    import os, sys\n"
                          "    if sys.argv[0].endswith(\"faults/worker.py\"):\n        os._exit(1)\n", 1)


def notebook(lab_id: str, tree: str = "solutions", *, edit: dict | None = None, prepend: dict | None = None,
             drop: set[str] = frozenset()):
    """A copy of a lab's notebook: exercise cells edited or prefixed, some cells (or 'setup') dropped."""
    lab = COURSE.lab(lab_id)
    nb = nbformat.read(ROOT / tree / lab.notebook, as_version=4)
    cells = []
    for cell in nb.cells:
        exercise = exercise_of(cell)
        if exercise in drop or ("setup" in drop and "setup" in cell.metadata.get("tags", [])):
            continue
        if exercise and edit and exercise in edit:
            changed = edit[exercise](cell.source)
            assert changed != cell.source, f"the wrong answer for {exercise} no longer applies"
            cell.source = changed
        if exercise and prepend and exercise in prepend:
            cell.source = prepend[exercise] + cell.source
        cells.append(cell)
    nb.cells = cells
    return nb


def save(nb, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def wrong(*answers):
    return {exercise: change for exercise, change, _ in answers}


def make_class(folder: Path) -> list[str]:
    """Write a class's submissions into folder: 27 files (and a checkpoint, ignored); return those made from labs."""
    nb = lambda lab: COURSE.lab(lab).notebook  # noqa: E731
    plan = {
        f"ana/{nb('00')}": notebook("00"),
        f"ana/{nb('03')}": notebook("03"),
        f"ana/{nb('07')}": notebook("07"),
        f"ben/{nb('00')}": notebook("00", "labs"),
        f"ben/{nb('03')}": notebook("03", "labs"),
        f"ben/{nb('09')}": notebook("09", "labs"),
        f"cai/{nb('03')}": notebook("03", edit=wrong(PLAIN_FOR_UPDATE)),
        f"cai/{nb('07')}": notebook("07", edit=wrong(NO_JITTER)),
        f"dan/{nb('09')}": notebook("09", edit=wrong(ALL_URGENT)),
        f"dan/{nb('00')}": notebook("00", edit=wrong(WRONG_QUIZ)),
        f"eve_{nb('09')}": notebook("09", edit=wrong(DEFAULT_PRIORITY)),  # the flat layout
        f"eve_{nb('00')}": notebook("00"),
        f"fay/{nb('07')}": notebook("07", drop={"07.route"}),  # the exercise's cell deleted
        f"gil/{nb('09')}": notebook("09", drop={"setup"}),  # the setup cells deleted
        f"hal/{nb('00')}": notebook("00", prepend={"00.first_job": HANG}),
        f"ivy/{nb('00')}": notebook("00", prepend={"00.first_job": EXIT}),
        f"jon/{nb('00')}": notebook("00", prepend={"00.first_job": KILL_PARENT}),
        f"kim/{nb('03')}": notebook("03", prepend={"03.claim": DROP_PUBLIC}),
        f"lee/{nb('03')}": notebook("03", prepend={"03.claim": DROP_EVERYTHING}),
        f"mia/{nb('00')}": notebook("00", prepend={"00.first_job": "def broken(:\n"}),
        f"ola/{nb('03')}": notebook("03", "labs"),
        f"pia/{nb('00')}": notebook("00", edit={"00.first_job": lambda s: s + '\ncheck("00.first_job")\n'}),
        f"qin/{nb('02')}": notebook("02", edit={"02.send_receipt": kills_its_worker}),
    }
    for name, content in plan.items():
        save(content, folder / name)
    # ola saved her work as a copy: the newer notebook is the one graded
    later = save(notebook("03"), folder / "ola" / "03_postgres_queue-Copy1.ipynb")
    os.utime(later, (later.stat().st_mtime + 60, later.stat().st_mtime + 60))
    (folder / "fay" / nb("03")).write_text("this is not JSON {")
    (folder / "gil" / nb("07")).write_text("[]")  # JSON, but not a notebook
    (folder / "ned").mkdir()
    (folder / "ned" / "my_notes.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    (folder / "ana" / ".ipynb_checkpoints").mkdir()
    (folder / "ana" / ".ipynb_checkpoints" / "00_start_here-checkpoint.ipynb").write_text("ignored")
    return sorted(plan)


# -- finding submissions ---------------------------------------------------------------------------


def test_both_layouts_are_found_and_a_stray_name_gets_a_row(tmp_path):
    save(notebook("00", "labs"), tmp_path / "ana" / "00_start_here.ipynb")
    save(notebook("00", "labs"), tmp_path / "ana" / "sub" / "03_postgres_queue.ipynb")
    save(notebook("00", "labs"), tmp_path / "bo_b_07_retries_dead_letters.ipynb")
    save(notebook("00", "labs"), tmp_path / "cy" / "notes.ipynb")
    (tmp_path / "cy" / ".ipynb_checkpoints").mkdir()
    save(notebook("00", "labs"), tmp_path / "cy" / ".ipynb_checkpoints" / "00_start_here-checkpoint.ipynb")
    found, stray = submissions.find_submissions(tmp_path, {lab.id for lab in COURSE.labs})
    assert [(s.student, s.lab) for s in found] == [("ana", "00"), ("ana", "03"), ("bo_b", "07")]
    assert [(r.student, r.status) for r in stray] == [("cy", "unreadable")]
    assert "<student>/<NN>_*.ipynb" in stray[0].detail
    found, stray = submissions.find_submissions(tmp_path, {"03"}, {lab.id for lab in COURSE.labs})  # --lab 03
    assert [(s.student, s.lab) for s in found] == [("ana", "03")]
    assert [(r.student, r.status) for r in stray] == [("cy", "unreadable")]  # a lab not asked for: no row


def test_a_huge_or_linked_submission_is_not_read(tmp_path):
    """A sparse 2 GB notebook (a zip can carry one) made the grader hold 4 GB; a link would be graded as
    the file it points to. Each gets a row that says why, and is never opened."""
    huge = tmp_path / "big" / "00_start_here.ipynb"
    huge.parent.mkdir()
    with open(huge, "wb") as f:
        f.truncate(submissions.MAX_NOTEBOOK_BYTES + 1)
    (tmp_path / "lnk").mkdir()
    (tmp_path / "lnk" / "00_start_here.ipynb").symlink_to(ROOT / "solutions" / COURSE.lab("00").notebook)
    found, refused = submissions.find_submissions(tmp_path, {"00"})
    assert found == []
    assert [(r.student, r.status) for r in refused] == [("big", "unreadable"), ("lnk", "unreadable")]
    assert "MiB a notebook may be" in refused[0].detail and "symbolic link" in refused[1].detail


def test_a_notebook_nested_too_deep_for_json_is_unreadable_not_the_graders_failure():
    """hostile3, attack 6: "[" * 200_000 (200 kB) made json raise RecursionError, not JSONDecodeError: the row
    said the grader had failed (exit 1) and the comparison of answers between students stopped for all."""
    assert submissions.unreadable("[" * 200_000) == "not a notebook: JSON nested deeper than Python's parser goes"
    assert submissions.unreadable("{}").startswith("not a notebook: ")  # JSON, but no notebook: as before


def test_a_name_planted_in_the_exchange_folder_does_not_steer_where_specs_are_copied(tmp_path):
    """hostile3, attacks 1 and 2: the answer host, first to run, put `specs` in the exchange folder (shared,
    1777) before the checker made it with mkdir(exist_ok=True): as a symlink, the checker (root) copied each
    worker's spec into the folder it named; as a folder of the notebook's own, a thread swapped each new copy
    for a symlink before the checker's chmod(copy, 0o644), which then opened a root-only file to everyone.
    The specs go to a folder of the checker's own, named at random; the copy's mode is set by descriptor."""
    elsewhere, secret = tmp_path / "elsewhere", tmp_path / "secret"
    elsewhere.mkdir()
    secret.write_text("root's alone")
    secret.chmod(0o600)
    spec = tmp_path / "spec.pkl"
    spec.write_bytes(b"the worker's spec")
    confinement = confine.Confinement(tmp_path / "scratch", conninfo=None)
    try:
        (confinement.exchange / "specs").symlink_to(elsewhere)  # what the notebook's code could plant
        child = confinement.launch_spec([sys.executable, "-c", "import sys; print(open(sys.argv[1]).read())",
                                         str(spec)], [str(spec)], stdout=subprocess.PIPE)
        out, _ = child.communicate(timeout=300)
        copied = Path(child.args[-1])
        assert out.strip() == b"the worker's spec" and copied.read_bytes() == b"the worker's spec"
        assert list(elsewhere.iterdir()) == []
        assert copied.parent.parent == confinement.exchange and not copied.parent.is_symlink()
        assert copied.parent.name != "specs" and oct(copied.parent.stat().st_mode & 0o777) == "0o755"
        assert oct(copied.stat().st_mode & 0o777) == "0o644" and oct(secret.stat().st_mode & 0o777) == "0o600"
    finally:
        confinement.end()


def test_the_newest_notebook_of_a_lab_is_graded(tmp_path):
    old = save(notebook("03", "labs"), tmp_path / "ola" / "03_postgres_queue.ipynb")
    new = save(notebook("03"), tmp_path / "ola" / "03_postgres_queue-Copy1.ipynb")
    os.utime(old, (new.stat().st_mtime - 60, new.stat().st_mtime - 60))
    found, _ = submissions.find_submissions(tmp_path, {"03"})
    assert [(s.path.name, [p.name for p in s.also]) for s in found] == [(new.name, [old.name])]


def test_grade_help_says_which_layouts_are_accepted(capsys):
    with pytest.raises(SystemExit):
        grade.main(["--help"])
    text = capsys.readouterr().out
    for words in ("<student>/<NN>_*.ipynb", "<student>_<NN>_*.ipynb", "--jobs", "--timeout", "--out"):
        assert words in text


def test_the_summary_counts_pass_rates_and_names_what_to_reteach():
    lab = COURSE.lab("09")
    reason = "each job type goes to the queue its impact calls for"
    rows = [gradebook.Row("a", "09", "09.route", "passed", True),
            gradebook.Row("b", "09", "09.route", "failed", first_failing=reason),
            gradebook.Row("c", "09", "09.route", "failed", first_failing=reason),
            gradebook.Row("d", "09", "09.route", "timed out", first_failing="timed out", detail="still running")]
    text = gradebook.summary(lab, rows)
    assert "| 09.route " in text and "| 1 | 2 | 0 | 1 | 25 % |" in text
    assert "each job type goes to the queue its impact calls for — 2 students (b, c)" in text
    assert "d, 09.route: timed out — still running" in text


# -- grading a class -------------------------------------------------------------------------------


@pytest.fixture
def sentinel(database):
    """Another schema with data in it, that no submission may drop."""
    name = f"grade_sentinel_{secrets.token_hex(3)}"
    db.reset_schema(name)
    with db.connect(name) as conn:
        conn.execute("CREATE TABLE precious (id int)")
        conn.execute("INSERT INTO precious VALUES (1)")
    yield name
    db.drop_schema(name)


def grading_roles(only_ours: bool = True) -> set[str]:
    """The roles grading made — by default only this process's (another grade run may share the database)."""
    with db.connect() as conn:
        found = conn.execute("SELECT rolname, shobj_description(oid, 'pg_authid') FROM pg_roles "
                             "WHERE rolname LIKE %s", [roles.ROLE_PREFIX.replace("_", "\\_") + "%"]).fetchall()
    return {name for name, comment in found if not only_ours or f"pid {os.getpid()} " in (comment or "")}


def lab_rows(rows, student, lab):
    return {r.exercise: r for r in rows if r.student == student and r.lab == lab}


def statuses(rows, student, lab):
    return {exercise: row.status for exercise, row in lab_rows(rows, student, lab).items()}


def every(lab, status):
    return {e.id: status for e in COURSE.lab(lab).exercises}


@pytest.mark.slow
@pytest.mark.timeout(1800)  # a backstop: each notebook's own limit (45 s an exercise, a hang once) bounds a hang;
#                             27 notebooks, two at a time, take 5-10 min on a 2-core machine at load 20-40
def test_a_class_of_submissions_is_graded_each_with_its_own_row(tmp_path, sentinel):
    make_class(tmp_path / "class")
    progress = Path(os.environ["COURSE_PROGRESS_FILE"])
    out = tmp_path / "gradebook"
    rows = grade.grade(tmp_path / "class", out, jobs=2, timeout_s=45, seed=7, progress=False, trust=True).rows

    said = "\n".join(f"{r.student} {r.exercise}: {r.status} {r.detail}" for r in rows if r.status != "passed")
    assert statuses(rows, "ana", "00") == every("00", "passed"), said
    assert statuses(rows, "ana", "03") == every("03", "passed"), said
    assert statuses(rows, "ana", "07") == every("07", "passed"), said
    assert statuses(rows, "eve", "00") == every("00", "passed")  # the flat layout
    for lab in ("00", "03", "09"):
        assert statuses(rows, "ben", lab) == every(lab, "not started")

    for student, lab, (exercise, _, reason) in [("cai", "03", PLAIN_FOR_UPDATE), ("cai", "07", NO_JITTER),
                                                ("dan", "09", ALL_URGENT), ("dan", "00", WRONG_QUIZ),
                                                ("eve", "09", DEFAULT_PRIORITY)]:
        mine = lab_rows(rows, student, lab)
        assert mine[exercise].status == "failed" and reason in mine[exercise].first_failing, mine[exercise]
        assert all(r.status == "passed" for e, r in mine.items() if e != exercise), mine

    fay = lab_rows(rows, "fay", "03")
    assert list(fay) == ["*"] and fay["*"].status == "unreadable" and "not JSON" in fay["*"].detail
    gil07 = lab_rows(rows, "gil", "07")
    assert list(gil07) == ["*"] and gil07["*"].status == "unreadable" and "not a notebook" in gil07["*"].detail
    assert statuses(rows, "fay", "07") == {**every("07", "passed"), "07.route": "no cell"}
    gil = lab_rows(rows, "gil", "09")  # setup cells deleted: the answers fail on a missing name; the quiz needs none
    assert gil["09.route"].status == gil["09.newsletter"].status == "failed"
    assert "NameError" in gil["09.route"].detail and "NameError" in gil["09.newsletter"].detail
    assert gil["09.quiz"].status == "passed"

    hal = lab_rows(rows, "hal", "00")  # a cell that never returns
    assert hal["00.first_job"].status == "timed out" and "45 s" in hal["00.first_job"].detail
    assert hal["00.quiz"].status == "passed"
    ivy = lab_rows(rows, "ivy", "00")  # os._exit in the cell
    assert ivy["00.first_job"].status == "crashed" and "exit code 3" in ivy["00.first_job"].detail
    assert ivy["00.quiz"].status == "passed"
    jon = lab_rows(rows, "jon", "00")  # kills its parent: without a sandbox that is the checker, so a crash
    if sandboxed():  # its parent is its sandbox's, which it may not signal
        assert jon["00.first_job"].status == "could not load" and "not permitted" in jon["00.first_job"].detail
    else:
        assert jon["00.first_job"].status == "crashed" and "SIGKILL" in jon["00.first_job"].detail
    assert jon["00.quiz"].status == "passed"
    mia = lab_rows(rows, "mia", "00")
    assert mia["00.first_job"].status == "could not load" and "SyntaxError" in mia["00.first_job"].detail

    kim = lab_rows(rows, "kim", "03")  # DROP SCHEMA public CASCADE: refused, and said so
    assert kim["03.claim"].status == "could not load" and "InsufficientPrivilege" in kim["03.claim"].detail
    assert kim["03.claim_batch"].status == kim["03.quiz"].status == "passed"
    assert statuses(rows, "lee", "03") == every("03", "passed")  # tried to drop every schema; dropped none
    assert "schemas gone" not in " ".join(r.detail for r in rows)

    ola = lab_rows(rows, "ola", "03")
    assert all(r.status == "passed" and r.notebook.endswith("-Copy1.ipynb") for r in ola.values())
    assert "03_postgres_queue.ipynb" in ola["03.claim"].detail
    assert statuses(rows, "pia", "00") == every("00", "passed")
    assert [(r.student, r.status) for r in rows if r.student == "ned"] == [("ned", "unreadable")]
    qin = lab_rows(rows, "qin", "02")  # the answer kills every worker that runs it: its failure, not the grader's
    assert qin["02.send_receipt"].status == "failed" and "exit code 1" in qin["02.send_receipt"].detail
    assert qin["02.place_order"].status == qin["02.quiz"].status == "passed"

    # nothing outside each submission's own schemas was harmed, and nothing was left behind
    with db.connect(sentinel) as conn:
        assert conn.execute("SELECT count(*) FROM precious").fetchone()[0] == 1
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'public'").fetchone()[0] == 1
    assert grading_roles() == set(), "a role made for grading was left behind"
    assert not progress.exists(), "grading wrote into the instructor's progress file"

    # the gradebook on disk says the same
    with open(out / "gradebook.csv") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == gradebook.COLUMNS and len(table) == len(rows)
    assert {(t["student"], t["exercise"], t["status"]) for t in table} == {
        (r.student, r.exercise, r.status) for r in rows}
    assert all(t["seed"] for t in table if t["exercise"] != "*" and t["student"] != "ned")
    for lab in ("00", "02", "03", "07", "09"):
        text = (out / f"summary-{lab}.md").read_text()
        assert text.startswith(f"# Lab {lab}") and "pass rate" in text and "What to re-teach" in text
    assert "does not wait for a row another worker is claiming" in (out / "summary-03.md").read_text()
    assert (out / "summary.md").read_text().count("# Lab ") == 5


@pytest.mark.slow
def test_an_answer_that_kills_its_worker_gets_its_row_and_the_next_student_is_graded(tmp_path):
    lab = COURSE.lab("02")
    save(notebook("02", edit={"02.send_receipt": kills_its_worker}), tmp_path / "a" / lab.notebook)
    save(notebook("00"), tmp_path / "b" / COURSE.lab("00").notebook)
    rows = grade.grade(tmp_path, tmp_path / "out", jobs=1, timeout_s=90, progress=False, trust=True).rows
    a = lab_rows(rows, "a", "02")
    assert a["02.send_receipt"].status == "failed" and not a["02.send_receipt"].passed, a
    assert "exit code 1" in a["02.send_receipt"].detail + a["02.send_receipt"].first_failing, a
    assert a["02.place_order"].status == "passed"
    assert statuses(rows, "b", "00") == every("00", "passed")


FOR_UPDATE = ("12.invoice_worker", lambda source: source.replace("FOR NO KEY UPDATE", "FOR UPDATE"),
              "rows that reference the booking can still be inserted")


@pytest.mark.slow
@pytest.mark.timeout(1800)  # a backstop: the limit below bounds a hang; each notebook takes 1-3 min at load 20
def test_the_reference_invoice_worker_passes_under_the_grader_and_a_wrong_lock_fails(tmp_path, database):
    """12.invoice_worker runs the answer's handler in children of its own (faults/killpoint.py), held at
    their commit while a second run goes on. In class grading such a child runs in the notebook's sandbox,
    whose one way to PostgreSQL is its gate: a child that dialled the checker's socket exited 1 at once,
    and the reference failed the three checks that judge beside a held run. FOR UPDATE instead of FOR NO
    KEY UPDATE is caught only beside a held run, so it must fail that check, and that check alone."""
    lab = COURSE.lab("12")
    others = {e.id for e in lab.exercises} - {"12.invoice_worker"}
    for student, changes in (("ana", None), ("ben", None), ("cai", wrong(FOR_UPDATE))):
        save(notebook("12", edit=changes, drop=others), tmp_path / "class" / student / lab.notebook)
    rows = grade.grade(tmp_path / "class", tmp_path / "out", jobs=2, timeout_s=600, seed=12, progress=False,
                       trust=not sandboxed()).rows

    said = "\n".join(f"{r.student} {r.exercise}: {r.status} {r.detail}\n{r.report}" for r in rows
                     if r.exercise == "12.invoice_worker")
    for student in ("ana", "ben"):
        assert lab_rows(rows, student, "12")["12.invoice_worker"].status == "passed", said
    cai = lab_rows(rows, "cai", "12")["12.invoice_worker"]
    assert cai.status == "failed" and len(cai.failing) == 1 and FOR_UPDATE[2] in cai.first_failing, said
    assert "refused" in cai.report, said  # judged beside a held run, not "never tried"


def test_the_command_line_writes_the_gradebook(tmp_path, database):
    save(notebook("00"), tmp_path / "class" / "ana" / "00_start_here.ipynb")
    (tmp_path / "class" / "bob_00_start_here.ipynb").write_text("{not json")
    from course.cli import main

    assert main(["grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--jobs", "1",
                 "--trust-submissions"]) == 0
    table = list(csv.DictReader(open(tmp_path / "out" / "gradebook.csv")))
    assert [(t["student"], t["exercise"], t["status"], t["passed"]) for t in table] == [
        ("ana", "00.first_job", "passed", "1"), ("ana", "00.quiz", "passed", "1"), ("bob", "*", "unreadable", "0")]
    assert "| 00.first_job Enqueue your first job | 1 | 0 | 0 | 1 | 50 % |" in (
        tmp_path / "out" / "summary-00.md").read_text()


def test_without_a_role_of_its_own_a_dropped_schema_is_still_found_and_said(tmp_path, sentinel, monkeypatch):
    """Where the database will not let us make roles, each notebook runs as the course's user: then the
    grader compares the schemas after each notebook, and the row says which ones went."""
    def no_roles(self):
        self.available, self.why_not = False, "roles switched off for this test"

    monkeypatch.setattr(roles.Roles, "_probe", no_roles)
    drop = f"from course.infra import db as _db\n_db.drop_schema({sentinel!r})\n"
    save(notebook("00", prepend={"00.first_job": drop}), tmp_path / "class" / "zed" / "00_start_here.ipynb")
    rows = grade.grade(tmp_path / "class", tmp_path / "out", jobs=1, timeout_s=60, progress=False, trust=True).rows
    zed = lab_rows(rows, "zed", "00")
    assert zed["00.first_job"].status == "passed"  # the answer itself is right...
    assert f"schemas gone after it ran: ['{sentinel}']" in zed["00.first_job"].detail  # ...and it is on record


def test_a_role_left_by_a_killed_grade_run_is_dropped_by_the_next(database):
    made = roles.Roles()
    role, _ = made.create()
    with db.connect() as conn:  # as if the run that made it had the pid of a process long gone
        gone = made.owner_tag().replace(f"pid {os.getpid()}", "pid 999999999")
        conn.execute(sql.SQL("COMMENT ON ROLE {} IS {}").format(sql.Identifier(role), sql.Literal(gone)))
    mine, _ = made.create()  # a role of a run still going (this one): kept
    try:
        dropped = made.left_behind()
        assert role in dropped and mine not in dropped
        assert role not in grading_roles(only_ours=False) and mine in grading_roles()
    finally:
        made.drop(mine)


def test_a_notebooks_role_can_neither_block_the_graders_nor_take_every_connection(database):
    """A hostile class held the graders' advisory lock from a backend asleep in pg_sleep (every grade run
    then waited on it), and opened 297 connections (its classmates' checkers could not connect)."""
    import psycopg

    made = roles.Roles(share=20)  # a small share: the test opens all of it
    role, conninfo = made.create()
    try:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute("SELECT pg_advisory_lock(hashtext('course grade: roles'))")  # the old key: now nobody's
            # The graders' lock table: in its own database there is none (it lives in the course's); where
            # roles share the course's database, its schema is the course's user's alone: refused
            out_of_reach = (psycopg.errors.InvalidSchemaName if made.own_databases
                            else psycopg.errors.InsufficientPrivilege)
            with pytest.raises(out_of_reach), conn.transaction():
                conn.execute(f"LOCK TABLE {roles.LOCK_SCHEMA}.{roles.LOCK_TABLE} IN ACCESS SHARE MODE")
            other, _ = made.create()  # the graders go on
            made.drop(other)
            limit = conn.execute("SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user").fetchone()[0]
            total = int(conn.execute("SELECT current_setting('max_connections')").fetchone()[0])
            held = [psycopg.connect(conninfo) for _ in range(limit - 1)]  # all it may open (with `conn`)
            try:
                with pytest.raises(psycopg.OperationalError) as refused:
                    psycopg.connect(conninfo)
                assert checker.notebooks_doing(refused.value)  # its rows say so, not the grader's "problem"
            finally:
                for extra in held:
                    extra.close()
        assert 0 < limit <= total // 21
    finally:
        made.drop(role)
    assert role not in grading_roles(only_ours=False)


@pytest.mark.parametrize("fill", [
    "CREATE TABLE fill.junk AS SELECT repeat(md5(g::text), 32) AS x FROM generate_series(1, 2000) g",  # ~2 MiB
    "SELECT lo_from_bytea(0, decode(repeat(md5('x'), 131072), 'hex'))",  # 2 MiB in pg_largeobject, the catalog's
], ids=["a table", "a large object"])
def test_a_notebook_that_fills_the_servers_disk_is_stopped_at_its_budget(database, fill):
    """A hostile class wrote 1.1 GB through PostgreSQL in 83 s, and nothing stopped it. Past its budget a
    role's sessions end and it may not log in again (here a budget of 1 MiB)."""
    import time

    import psycopg

    made = roles.Roles()
    role, conninfo = made.create()
    try:
        with made.watched(role, budget_bytes=1 << 20) as watch, psycopg.connect(conninfo, autocommit=True) as conn:
            schema = f"t_fill_{secrets.token_hex(3)}"  # its own (tests run at once), t_ as test schemas are
            conn.execute(f"CREATE SCHEMA {schema}")
            conn.execute(fill.replace("fill.", f"{schema}."))
            for _ in range(600):  # the watcher measures every 2 s; a loaded machine may be slow to run it
                if watch.ended:
                    break
                time.sleep(0.1)
            assert "its sessions were ended" in watch.ended, watch.ended
            with pytest.raises(psycopg.OperationalError):
                conn.execute("SELECT 1")
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(conninfo).close()
        limit = roles.TEMP_FILE_LIMIT
        with db.connect() as conn:
            settings = conn.execute("SELECT setconfig FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole "
                                    "WHERE r.rolname = %s", [role]).fetchone()[0]
        assert f"temp_file_limit={limit}" in settings
    finally:
        made.drop(role)


# -- paths as typed, the exit status, the files an instructor hands back -----------------------------------


def readme_command() -> list[str]:
    """The grading command as README.md prints it in its grading section."""
    text = (notebooks.ROOT / "README.md").read_text()
    section = text[text.index("## Grading a class"):]
    command = section[section.index("```sh\n") + 6:section.index("\n```", section.index("```sh\n"))]
    assert command.startswith("python -m course grade "), command
    return command.split()


@pytest.mark.slow
def test_readmes_command_as_typed_grades_a_class_from_another_folder(tmp_path, database):
    """Run from a folder that is not the checkout, with SUBMISSIONS and --out relative to it."""
    argv = readme_command()
    where = tmp_path / "elsewhere"
    submissions = where / argv[argv.index("grade") + 1]
    save(notebook("00"), submissions / "ana" / COURSE.lab("00").notebook)
    save(notebook("00", "labs"), submissions / "ben" / COURSE.lab("00").notebook)
    command = [sys.executable, *argv[1:]]
    env = {**os.environ, "PYTHONPATH": str(notebooks.ROOT)}
    if not confine.isolation()[0]:  # no sandbox here: as typed, it refuses in one line and writes nothing
        refused = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=300)
        assert refused.returncode == 2 and "--trust-submissions" in refused.stderr, refused
        assert not (where / argv[argv.index("--out") + 1]).exists()
        command.append("--trust-submissions")
    done = subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    table = list(csv.DictReader(open(where / argv[argv.index("--out") + 1] / "gradebook.csv")))
    assert {(t["student"], t["exercise"], t["status"]) for t in table} == {
        ("ana", "00.first_job", "passed"), ("ana", "00.quiz", "passed"),
        ("ben", "00.first_job", "not started"), ("ben", "00.quiz", "not started")}, done.stdout + done.stderr


def test_the_exit_status_says_when_the_grader_itself_failed(tmp_path, database, monkeypatch):
    save(notebook("00"), tmp_path / "class" / "ana" / "00_start_here.ipynb")
    from course.cli import main

    def broken(self):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(roles.Roles, "create", broken)
    assert main(["grade", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--trust-submissions"]) == 1
    assert main(["grade", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out2"), "--trust-submissions"]) == 2


def test_the_gradebook_has_scores_every_failure_a_wide_sheet_and_feedback(tmp_path, database):
    save(notebook("00", edit=wrong(WRONG_QUIZ)), tmp_path / "class" / "dan" / "00_start_here.ipynb")
    save(notebook("00"), tmp_path / "class" / "eve" / "00_start_here.ipynb")
    out = tmp_path / "out"
    graded = grade.grade(tmp_path / "class", out, jobs=2, timeout_s=60, seed=11, progress=False, trust=True)
    dan = lab_rows(graded.rows, "dan", "00")["00.quiz"]
    assert dan.status == "failed" and (dan.checks_passed, dan.checks_total) == (2, 3) and dan.score == 2 / 3
    assert [f["name"] for f in dan.failing] == [dan.first_failing] and "q1" in dan.first_failing

    long = {(t["student"], t["exercise"]): t for t in gradebook.read_csv(out / "gradebook.csv")}
    assert long[("dan", "00.quiz")]["score"] == "0.67" and long[("dan", "00.quiz")]["failing"] == dan.first_failing
    wide = list(csv.DictReader(open(out / "grades-wide.csv")))
    assert [(w["student"], w["00.first_job"], w["00.quiz"], w["lab 00"], w["total"]) for w in wide] == [
        ("dan", "1", "0.67", "1.67", "1.67"), ("eve", "1", "1", "2", "2")]
    feedback = (out / "feedback" / "dan" / "00.md").read_text()
    assert "00.quiz" in feedback and dan.first_failing in feedback and f"seed={dan.seed}" in feedback
    assert "1 of 2 exercises passed" in feedback
    head = (out / "summary.md").read_text()
    assert "seed 11" in head and "course commit " in head and "sandbox" in head
    assert f"SHA-256 {graded.run.checksum}" in head and "Nothing to flag" in head
    facts = json.loads((out / "run.json").read_text())
    assert facts["seed"] == 11 and facts["rows"] == 4 and facts["seconds"] > 0


# -- a hostile class -------------------------------------------------------------------------------------


def sandboxed() -> bool:
    return confine.isolation()[0]


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_references_whose_checks_start_processes_pass_in_the_sandbox(tmp_path, database):
    """04.heartbeat's workers and 08.tick's scheduler processes run the notebook's code, so under grading they
    run sandboxed: they cannot import course/grading/checks (hidden there) and reach the database only through
    the sandbox's gate, not the check's socket. Each failed on the reference before its work moved out of the
    checks and its connection string was rewritten for where it runs (db.reached_here)."""
    if not confine.isolation()[0]:
        pytest.skip("no sandbox on this machine: `course grade` would refuse without --trust-submissions")
    for lab in ("04", "08"):
        save(notebook(lab), tmp_path / "class" / "ana" / COURSE.lab(lab).notebook)
    rows = grade.grade(tmp_path / "class", tmp_path / "out", jobs=2, timeout_s=400, seed=11, progress=False,
                       trust=False).rows
    said = "\n".join(f"{r.exercise}: {r.status} {r.first_failing} {r.detail}" for r in rows if r.status != "passed")
    assert statuses(rows, "ana", "04") == every("04", "passed"), said
    assert statuses(rows, "ana", "08") == every("08", "passed"), said


@pytest.mark.slow
@pytest.mark.timeout(1800)  # as the class's: each notebook's limit bounds a hang; this is a backstop
def test_a_hostile_class_earns_nothing_harms_nothing_and_leaves_nothing_running(tmp_path, sentinel):
    """Each notebook tries one attack on top of a stub (so any pass is unearned), or on top of a right
    answer (so its grade shows what the attack cost); ana and ben are honest classmates."""
    from tests.grading import hostile

    lab00 = COURSE.lab("00").notebook
    folder = tmp_path / "class"
    pid_file = tmp_path / "daemon.pid"
    plan = {
        "ana": notebook("00"),  # the victim of the vandal: graded as she handed it in
        "ben": notebook("00", prepend={"00.first_job": "# ben's\n"}),
        "forger": notebook("00", "labs", prepend={"00.first_job": hostile.forge_results(str(tmp_path))}),
        "patcher": notebook("00", "labs", prepend={"00.first_job": hostile.PATCH_REPORT}),
        "flatterer": notebook("00", edit={"00.first_job": lambda s: hostile.EQUAL_TO_EVERYTHING,
                                          "00.quiz": lambda s: hostile.EQUAL_TO_EVERYTHING}),
        "quitter": notebook("00", edit={"00.first_job": lambda s: hostile.EXITS}),
        "vandal": notebook("00", "labs", prepend={"00.first_job": hostile.vandal(f"{folder}/**/ana/{lab00}")}),
        "daemon": notebook("00", "labs", prepend={"00.first_job": hostile.daemon_writing_its_pid(str(pid_file))}),
    }
    plan["eve!"], plan["eve?"] = notebook("00"), notebook("00", "labs")  # one file name to safe(): each their own
    injected = "| ben | 00.first_job | passed |"  # a folder name that would write a line into summary.md
    plan[f"x\n{injected}"] = plan['=HYPERLINK("evil.example?"&A1,"click")'] = notebook("00", "labs")  # a formula
    odd = notebook("00")  # an exercise id that is not text: no exercise, and the class's gradebook still written
    next(c for c in odd.cells if exercise_of(c) == "00.quiz").metadata["course"] = {"exercise": ["00.quiz"]}
    plan["odd"] = odd
    listener = socket.create_server(("127.0.0.1", 0))  # a server no notebook is given: a classmate's, say
    listener.settimeout(0)
    if sandboxed():  # what only the OS sandbox refuses: reading files that are not the notebook's, other processes
        plan |= {"copier": notebook("00", "labs", prepend={"00.first_job": hostile.EXEC_SOLUTIONS}),
                 "superuser": notebook("00", "labs", prepend={"00.first_job": hostile.SUPERUSER}),
                 "prober": notebook("00", "labs", prepend={"00.first_job": hostile.FORGE_THROUGH_PROC}),
                 "keyreader": notebook("00", "labs", edit={"00.quiz": lambda s: hostile.READ_THE_KEY}),
                 "caller": notebook("00", "labs", prepend={"00.first_job": hostile.reach_port(
                     listener.getsockname()[1])})}
    for student, nb in plan.items():
        save(nb, folder / student / lab00)
    (folder / "linker").mkdir()  # a link to the solution (a zip keeps links), and one to a classmate's notebook
    (folder / "linker" / lab00).symlink_to(ROOT / "solutions" / lab00)
    (folder / "copycat").symlink_to(folder / "ana")
    progress = Path(os.environ["COURSE_PROGRESS_FILE"])
    out = tmp_path / "out"
    graded = grade.grade(folder, out, jobs=2, timeout_s=60, seed=3, progress=False, trust=not sandboxed())
    rows = graded.rows

    said = "\n".join(f"{r.student} {r.exercise}: {r.status} {r.detail}" for r in rows)
    assert statuses(rows, "ana", "00") == every("00", "passed"), said  # graded as handed in
    assert statuses(rows, "ben", "00") == every("00", "passed"), said
    unearned = [r for r in rows if r.passed and r.student not in ("ana", "ben", "quitter", "eve!", "odd")]
    assert unearned == [], said
    assert statuses(rows, "quitter", "00") == {"00.first_job": "failed", "00.quiz": "passed"}, said
    assert statuses(rows, "flatterer", "00") == every("00", "failed"), said
    assert statuses(rows, "eve!", "00") == every("00", "passed"), said
    assert statuses(rows, "eve?", "00") == every("00", "not started"), said
    assert statuses(rows, "odd", "00") == {"00.first_job": "passed", "00.quiz": "no cell"}, said
    for student in ("linker", "copycat"):
        assert [(r.status, "symbolic link" in r.detail) for r in rows if r.student == student] == [
            ("unreadable", True)], said
    feedback = {p.read_text().splitlines()[0] for p in (out / "feedback").glob("eve*/00.md")}
    assert feedback == {"# Lab 00: feedback for eve!", "# Lab 00: feedback for eve?"}, feedback
    assert len(list((out / "logs").glob("eve*-00.log"))) == 2
    assert injected not in (out / "summary.md").read_text().splitlines(), (out / "summary.md").read_text()
    assert statuses(rows, f"x\\n{injected}", "00") == every("00", "not started"), said  # its name, escaped
    for sheet in ("gradebook.csv", "grades-wide.csv"):
        with open(out / sheet, newline="") as f:
            names = {line[0] for line in csv.reader(f)}
        assert "'=HYPERLINK(\"evil.example?\"&A1,\"click\")" in names and not any(n.startswith("=") for n in names), names
    if sandboxed():  # its TCP reached no port but its own
        with pytest.raises(BlockingIOError):
            listener.accept()
    listener.close()

    flags = "\n".join(f"{whose}: {what}" for whose, what in graded.run.flags)
    if sandboxed():  # the vandal could not reach her notebook
        assert "changed on disk" not in flags, flags
    else:
        assert f"ana/{lab00}" in flags and "changed on disk" in flags, flags
    assert "daemon, lab 00" in flags and "processes left running" in flags, flags
    assert "ana, ben: 00.first_job: the same code" not in flags  # the solution itself is never a group

    # no damage: the database, the instructor's progress, the gradebook; nothing left running
    with db.connect(sentinel) as conn:
        assert conn.execute("SELECT count(*) FROM precious").fetchone()[0] == 1
    assert not progress.exists()
    assert gradebook.differs_from(gradebook.read_csv(out / "gradebook.csv"), rows) is None
    assert not Path("/tmp/course-hostile-was-here").exists()
    if pid_file.exists():  # without a sandbox it could say where it was (with one, the flag above says it)
        assert not processes.pid_alive(int(pid_file.read_text()))
    else:
        assert sandboxed(), "the daemon never started"
    assert grading_roles() == set()

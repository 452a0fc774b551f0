"""`python -m course grade SUBMISSIONS`: grade a class's notebooks and write a gradebook.

Layouts accepted under SUBMISSIONS (a notebook's lab is the two digits its file name starts with):

    SUBMISSIONS/<student>/<NN>_*.ipynb          one folder per student (subfolders of it are searched too)
    SUBMISSIONS/<student>_<NN>_*.ipynb          flat: the student's name, then the lab's notebook name

When a student handed in two notebooks of one lab (`03_postgres_queue-Copy1.ipynb`), the newest is graded.
Every notebook is read once, before any student's code runs, and graded as read.

No student's code runs in a process that decides a grade. Each notebook gets a checker (checker.py), a
process that runs the exercise's checks and holds their connections, and an answer host in the
notebook's sandbox that runs its setup cells once and each exercise's cell; the checks call the answers
across a socket (course/grading/boundary/). The notebook's processes connect as a database role made for
that notebook alone, which owns nothing but the schemas it creates. A notebook that is not JSON, lacks
cells, hangs, kills its processes or attacks the grader gets a row that says so; the run goes on.

Written to --out (default `gradebook/`): `gradebook.csv` (one row per student, lab and exercise: status,
score, checks passed, every failing check, seed), `grades-wide.csv` (one row per student, a column per
exercise: for an LMS), `feedback/<student>/NN.md` (to hand back), `summary-NN.md` per lab (pass rates,
what to re-teach), `summary.md` (the run: its seed, the course's version, the sandbox, what was flagged,
then every lab), `run.json`, and `logs/` (what each notebook's cells printed).

Exit status: 0 when every notebook was graded; 1 when the grader itself failed on one (its row says
"problem"); 2 when it could not start (no sandbox here and no --trust-submissions, say).

Finding and reading the class's notebooks is submissions.py; the role per notebook roles.py; the
gradebook's rows, CSV and summaries gradebook.py; the score
sheet and feedback files handback.py; what is flagged integrity.py; one notebook's checker, watched,
supervise.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from course.errors import CourseError, first_line
from course.grading import confine, handback, integrity, manifest
from course.grading.gradebook import Row, Run, differs_from, one_line, read_csv, summary, write_csv
from course.grading.notebooks import LABS, ROOT, SOLUTIONS, exercise_of
from course.grading.roles import Roles, schemas
from course.grading.submissions import Submission, find_submissions, read_text, unreadable
from course.grading.supervise import supervise

DEFAULT_TIMEOUT_S = 120.0
EXAM_LAB = "14"  # the final exam: graded from the notebooks of 03, 04 and 07 handed in beside it


# -- grading one notebook -------------------------------------------------------------------------------


@dataclass
class Grader:
    out: Path
    timeout_s: float
    roles: Roles
    protected: set[str]
    seed: int
    texts: dict[Path, str | None]  # every notebook, as read before any student's code ran
    work: Path  # private to this run: the checkers' folders
    sandboxed: bool = False  # each notebook's code in sandboxes (confine.py); else trusted, as plain children
    hidden: list[str] = field(default_factory=list)  # what those sandboxes must never read
    file_names: dict[str, str] = field(default_factory=dict)  # student -> a name for their files, no two alike
    companions: dict[str, dict[str, str | None]] = field(default_factory=dict)  # student -> the notebooks
    #                              lab 14's pieces come from (file name -> text, read before any code ran)

    def grade(self, submission: Submission) -> tuple[list[Row], list[str]]:
        """The notebook's rows, and what was flagged while it was graded."""
        lab = manifest.load().lab(submission.lab)
        base = Row(submission.student, lab.id, "", "", notebook=submission.shown or submission.path.name)
        text = self.texts.get(submission.path)
        problem = unreadable(text)
        if problem:
            return [_row(base, exercise="*", status="unreadable", detail=problem)], []
        rng = random.Random(f"{self.seed}:{submission.student}:{lab.id}")
        seeds = {e.id: rng.randrange(1, 10**6) for e in lab.exercises}
        exam = lab.id == EXAM_LAB  # its pieces are the student's notebooks of 03, 04, 07 (exam/hosted.py)
        log = self.out / "logs" / f"{self.file_names.get(submission.student) or handback.safe(submission.student)}-{submission.lab}.log"
        role, conninfo = self.roles.create()
        try:
            with self.roles.watched(role) as watch:
                run = supervise(submission.path.name, text, [e.id for e in lab.exercises], seeds, conninfo=conninfo,
                                timeout_s=max(self.timeout_s, exam_timeout_s()) if exam else self.timeout_s, log=log,
                                work_root=self.work, sandboxed=self.sandboxed, hidden=self.hidden,
                                companions=self.companions.get(submission.student, {}) if exam else None)
        finally:
            self.roles.drop(role)
        if watch.ended:
            run.flags.append(watch.ended)
        run.flags.extend(watch.overstayed)
        rows = [_from_result(base, run.results[e.id]) for e in lab.exercises]
        # With a role of its own the notebook could not drop anyone's schema: PostgreSQL refused it. Without
        # one, a schema that is gone is all we can see (dropped by it, or by someone else meanwhile: the
        # course's database is shared with the instructor's kernel and, in the test suite, other tests).
        lost = sorted(self.protected - schemas()) if role is None else []
        notes = [f"schemas gone after it ran: {lost}"] if lost else []
        self.protected -= set(lost)  # said once
        if submission.also:
            notes.append(f"graded the newest notebook, not {', '.join(p.name for p in submission.also)}")
        for row in rows:
            row.detail = "; ".join(filter(None, [row.detail, *notes]))
        return rows, run.flags


def exam_timeout_s() -> float:
    """Lab 14's bound: its run's own limits (workers up, the drain, the cues), and time for its setup."""
    from course.grading.exam import soak

    return soak.LONGEST_S + DEFAULT_TIMEOUT_S


def companions_of(root: Path, submissions: list[Submission], course_labs: set[str]) -> dict[str, dict[str, str | None]]:
    """For each student whose lab 14 is graded, their notebooks of the labs its pieces come from, read now
    (before any code runs), by the lab's own file name; None for one that is not a plain file. Graded or not:
    `--lab 14` grades the exam alone, from the notebooks handed in beside it."""
    students = {s.student for s in submissions if s.lab == EXAM_LAB}
    if not students:
        return {}
    from course.grading.exam.hosted import notebooks_needed

    needed = notebooks_needed()
    found, refused = find_submissions(root, set(needed), course_labs)
    companions: dict[str, dict[str, str | None]] = {student: {} for student in students}
    for submission in found:
        if submission.student in students:
            companions[submission.student][needed[submission.lab]] = read_text(submission.path)
    for row in refused:
        if row.student in students and row.lab in needed:
            companions[row.student].setdefault(needed[row.lab], None)
    return companions


def _from_result(base: Row, result: dict) -> Row:
    failing = [f for f in result.get("failing") or [] if isinstance(f, dict) and "name" in f]
    checks = result.get("checks") or [0, 0]
    return _row(base, exercise=result["exercise"], status=result["status"], passed=bool(result.get("passed")),
                seconds=result.get("seconds", 0), seed=result.get("seed"), detail=result.get("detail", ""),
                first_failing=failing[0]["name"] if failing else "", failing=failing,
                checks_passed=int(checks[0]), checks_total=int(checks[1]), report=result.get("report", ""))


def _row(base: Row, **values) -> Row:
    row = Row(**{**asdict(base), **values})
    row.seconds = round(float(row.seconds or 0), 2)
    row.detail = one_line(row.detail, 400)
    row.first_failing = row.first_failing or ("" if row.status in {"passed", "failed"} else row.status)
    return row


# -- grading a class -------------------------------------------------------------------------------------


@dataclass
class Graded:
    rows: list[Row]
    run: Run
    files: list[Path] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """1 when the grader itself failed on a notebook (a row says "problem"), else 0."""
        return 1 if any(r.status == "problem" for r in self.rows) else 0


def grade(submissions_dir: Path, out: Path, *, jobs: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S,
          labs: list[str] | None = None, seed: int | None = None, progress: bool = True,
          trust: bool = False, command: str = "python -m course grade") -> Graded:
    """Grade every notebook under submissions_dir; write the gradebook into out. Paths may be relative to
    the current folder: they are made absolute before anything is started."""
    from tqdm.auto import tqdm

    from course.infra import db

    started_at, started = datetime.now(timezone.utc), time.monotonic()
    submissions_dir, out = Path(submissions_dir).resolve(), Path(out).resolve()
    course = manifest.load()
    wanted = {course.lab(l).id for l in labs} if labs else {lab.id for lab in course.labs}
    if not submissions_dir.is_dir():
        raise CourseError(f"{submissions_dir} is not a folder of notebooks.")
    enough, sandbox_line = confine.isolation()
    print(sandbox_line)
    if not enough and not trust:
        raise CourseError("The notebooks' code cannot be confined on this machine (see the line above): grade "
                          "only a class you trust here, with --trust-submissions, or grade on a machine that "
                          "can (README, \"Grading a class\"). Nothing was graded.")
    seed = seed if seed is not None else random.randrange(1, 10**6)
    submissions, rows = find_submissions(submissions_dir, wanted, {lab.id for lab in course.labs})
    every_notebook = sorted(p for p in submissions_dir.rglob("*.ipynb"))
    before = {p: integrity.fingerprint(p) for p in every_notebook}
    texts = {s.path: read_text(s.path) for s in submissions}
    companions = companions_of(submissions_dir, submissions, {lab.id for lab in course.labs})
    print(db.describe())
    roles = Roles(share=jobs)
    if not roles.available:
        if not trust:  # a sandbox's gate admits only a role of the notebook's own: never the course's user
            raise CourseError(f"Each notebook needs a database role of its own to be confined, and none can be "
                              f"made here ({roles.why_not}): grade only a class you trust, with "
                              f"--trust-submissions. Nothing was graded.")
        print(f"Note: grading as the course's own database user ({roles.why_not}), outside any sandbox; "
              f"schemas are compared after each notebook instead.")
    out.mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="course-grade-run-"))
    flags: list[tuple[str, str]] = []
    try:
        hidden = [submissions_dir, out, SOLUTIONS, Path(os.environ.get("COURSE_HOME") or ROOT / ".course"), work]
        grader = Grader(out, timeout_s, roles, {s for s in schemas() if not s.startswith(("check_", "t_"))},
                        seed, texts, work, sandboxed=enough and roles.available,
                        hidden=[str(p) for p in hidden], file_names=handback.file_names(s.student for s in submissions),
                        companions=companions)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool, \
                tqdm(total=len(submissions), desc="grading", unit="notebook", disable=not progress) as bar:
            futures = {pool.submit(grader.grade, s): s for s in submissions}
            for future in as_completed(futures):
                submission = futures[future]
                try:
                    graded, flagged = future.result()
                    rows.extend(graded)
                    flags += [(f"{submission.student}, lab {submission.lab}", flag) for flag in flagged]
                except Exception as error:  # the grader's own failure on one notebook: a row, and go on
                    rows.append(Row(submission.student, submission.lab, "*", "problem",
                                    notebook=submission.path.name, first_failing="problem",
                                    detail=f"the grader failed on it: {type(error).__name__}: {error}"))
                bar.update()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    flags += _never_fatal("comparing the notebooks before and after", lambda: _changed(before, submissions_dir))
    flags += _never_fatal("comparing the answers between students", lambda: _alike(submissions, texts, course))
    order = {e.id: i for i, e in enumerate(course.exercises)}
    rows.sort(key=lambda r: (r.student, r.lab, order.get(r.exercise, -1)))
    run = Run(started=started_at.isoformat(timespec="seconds"), seconds=0.0, seed=seed,
              course_version=course_version(), python=platform.python_version(), sandbox=sandbox_line,
              command=f"{command} {shlex.quote(str(submissions_dir))} --out {shlex.quote(str(out))}", flags=flags)
    return Graded(rows, run, _write(out, rows, run, course, started))


def _never_fatal(what: str, flags_of) -> list[tuple[str, str]]:
    """An integrity pass's flags; its failure is a flag too (a notebook it could not read takes down
    no one's gradebook)."""
    try:
        return flags_of()
    except Exception as error:  # noqa: BLE001 — what the submissions hold is theirs to choose
        return [("(the grader)", f"{what} stopped on {type(error).__name__}: {first_line(str(error), limit=200)}")]


def _changed(before: dict[Path, str], root: Path) -> list[tuple[str, str]]:
    """Notebooks that changed on disk, appeared or went while the class was graded."""
    after = {p: integrity.fingerprint(p) for p in sorted(root.rglob("*.ipynb"))}
    said = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            how = ("appeared" if path not in before else "was deleted" if path not in after
                   else "changed on disk (it was graded as read at the start)")
            said.append((str(path.relative_to(root)), f"this notebook {how} while the class was graded"))
    return said


def _alike(submissions: list[Submission], texts: dict, course: manifest.Manifest) -> list[tuple[str, str]]:
    """Code answers that are the same code under other names, in two or more students' notebooks."""
    from course.grading.notebooks import exercise_cells

    said = []
    for lab in course.labs:
        mine = [s for s in submissions if s.lab == lab.id and texts.get(s.path) and not unreadable(texts[s.path])]
        if len(mine) < 2:
            continue
        cells = {s.student: _exercise_cells(texts[s.path]) for s in mine}
        code = [e.id for e in lab.exercises if e.kind == "code"]
        everyone = {e: [c for c in (exercise_cells(LABS / lab.notebook).get(e),
                                    exercise_cells(SOLUTIONS / lab.notebook).get(e)) if c] for e in code}
        for exercise, students in integrity.identical_answers(cells, code, not_counted=everyone):
            said.append((", ".join(students), f"{exercise}: the same code under other names"))
    return said


def _exercise_cells(text: str) -> dict[str, str]:
    import nbformat

    notebook = nbformat.reads(text, as_version=4)
    return {exercise_of(c): c.source for c in notebook.cells if c.cell_type == "code" and exercise_of(c)}


def course_version() -> str:
    """The checkout's commit (and whether it has changes), else the package's version."""
    from course.grading.notebooks import ROOT

    try:
        described = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty", "--tags"],
                                   capture_output=True, text=True, timeout=10)
        if described.returncode == 0 and described.stdout.strip():
            return f"commit {described.stdout.strip()}"
    except (OSError, subprocess.TimeoutExpired):
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"version {version('course')}"
    except PackageNotFoundError:
        return "version unknown"


def _write(out: Path, rows: list[Row], run: Run, course: manifest.Manifest, started: float) -> list[Path]:
    """Every file of the gradebook; the CSV read back, and any difference flagged."""
    written = [out / "gradebook.csv", out / "grades-wide.csv"]
    write_csv(rows, written[0])
    handback.write_wide_csv(rows, course.exercises, written[1])
    written += handback.write_feedback(rows, out / "feedback", {e.id: e.title for e in course.exercises})
    texts = []
    for lab in course.labs:
        if any(r.lab == lab.id for r in rows):
            text = summary(lab, rows)
            (out / f"summary-{lab.id}.md").write_text(text)
            written.append(out / f"summary-{lab.id}.md")
            texts.append(text)
    different = differs_from(read_csv(written[0]), rows)
    if different:
        run.flags.append(("gradebook.csv", f"read back, it is not what was written: {different}"))
    run.checksum = hashlib.sha256(written[0].read_bytes()).hexdigest()
    run.seconds = time.monotonic() - started
    (out / "summary.md").write_text(run.head() + "\n" + ("\n".join(texts) or "No notebooks found.\n"))
    (out / "run.json").write_text(json.dumps({**asdict(run), "rows": len(rows),
                                              "statuses": dict(Counter(r.status for r in rows))}, indent=2))
    return written + [out / "summary.md", out / "run.json"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course grade", description=__doc__.splitlines()[0],
                                     epilog="\n".join(__doc__.splitlines()[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", type=Path, help="the folder of students' notebooks (layouts below)")
    parser.add_argument("--out", type=Path, default=Path("gradebook"),
                        help="where to write the gradebook, feedback/, summaries and logs/ (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help="seconds one exercise may take, loading its cell and running its checks; the "
                             "notebook's setup cells get it once (default: %(default)g)")
    parser.add_argument("--lab", action="append", dest="labs", metavar="NN",
                        help="grade only this lab (repeat for several; default: every lab found)")
    parser.add_argument("--seed", type=int, help="derive every check's random seed from this (default: a new one, "
                                                 "printed in summary.md)")
    parser.add_argument("--trust-submissions", action="store_true", dest="trust",
                        help="grade even where the notebooks' code cannot be confined (run as you, with your "
                             "files in reach): only for a class you trust")
    args = parser.parse_args(argv)
    try:
        graded = grade(args.submissions, args.out, jobs=args.jobs, timeout_s=args.timeout, labs=args.labs,
                       seed=args.seed, trust=args.trust)
    except CourseError as error:
        print(error, file=sys.stderr)
        return 2
    rows, run = graded.rows, graded.run
    count = Counter(r.status for r in rows)
    print(f"{len(rows)} rows: " + ", ".join(f"{n} {status}" for status, n in count.most_common()))
    if run.flags:
        print(f"{len(run.flags)} integrity flag(s): see summary.md")
    problems = [r for r in rows if r.status == "problem"]
    if problems:
        print(f"The grader itself failed on {len(problems)} row(s) (status 'problem'): see summary.md.")
    out = Path(args.out)
    print(f"Wrote {out / 'gradebook.csv'} (SHA-256 {run.checksum[:16]}…), {out / 'grades-wide.csv'}, "
          f"{out / 'feedback'}/ and {out / 'summary.md'}; seed {run.seed}.")
    return graded.exit_status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

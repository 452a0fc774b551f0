"""`python -m course grade SUBMISSIONS`: grade a class's notebooks and write a gradebook.

Layouts accepted under SUBMISSIONS (a notebook's lab is the two digits its file name starts with):

    SUBMISSIONS/<student>/<NN>_*.ipynb          one folder per student (subfolders of it are searched too)
    SUBMISSIONS/<student>_<NN>_*.ipynb          flat: the student's name, then the lab's notebook name

When a student handed in two notebooks of one lab (`03_postgres_queue-Copy1.ipynb`), the newest is graded.

Each exercise's answer is loaded the way `compare` does it — the notebook's setup cells and that
exercise's cell, never the rest — and its checks run in schemas of their own, with a time limit, in a
child process per notebook. The child connects as a database role made for that notebook alone, which
owns nothing but the schemas it creates: an answer that runs `DROP SCHEMA public CASCADE`, or drops
another student's schemas, is refused by PostgreSQL. A notebook that is not JSON, lacks cells, hangs,
kills its worker or its own process gets a row that says so; the run goes on with the next one.

Written to --out (default `gradebook/`): `gradebook.csv` (one row per student, lab and exercise),
`summary-NN.md` per lab (pass rates, the most common failing checks: what to re-teach) and `summary.md`
(all labs), and `logs/` (what each notebook's cells printed).

Student code runs as you, on this machine: grade a class you do not trust inside a container.

The role per notebook is course/grading/roles.py; the gradebook's rows, CSV and summaries are
course/grading/gradebook.py.

Why one module: it is one command's run: find the notebooks, then grade each in a child process watched
to its end (the child's side, the grader's side, and the loop that hands notebooks to both).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

from course.infra import processes
from course.errors import CourseError, first_line
from course.grading import manifest
from course.grading.gradebook import Row, one_line, summary, write_csv
from course.grading.roles import Roles, schemas

FLAT = re.compile(r"^(?P<student>.+)_(?P<lab>\d\d)_[^/]*\.ipynb$")
IN_FOLDER = re.compile(r"^(?P<lab>\d\d)_[^/]*\.ipynb$")
DEFAULT_TIMEOUT_S = 120.0


@dataclass
class Submission:
    student: str
    lab: str
    path: Path
    also: list[Path] = field(default_factory=list)  # older notebooks of the same lab, not graded
    shown: str = ""  # the path under SUBMISSIONS, for the gradebook


# -- finding the notebooks -----------------------------------------------------------------------------


def find_submissions(root: Path, labs: set[str]) -> tuple[list[Submission], list[Row]]:
    """The notebooks to grade, and a row for each .ipynb file whose name we cannot place."""
    root = root.resolve()
    found: dict[tuple[str, str], list[Path]] = defaultdict(list)
    unplaced: list[Row] = []
    for path in sorted(root.rglob("*.ipynb")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):  # .ipynb_checkpoints, .git
            continue
        if len(relative.parts) == 1:
            match = FLAT.match(path.name)
            student = match and match["student"]
        else:
            match = IN_FOLDER.match(path.name)
            student = relative.parts[0]
        if not match or match["lab"] not in labs:
            unplaced.append(Row(student or path.stem, "", "", "unreadable", notebook=str(relative),
                                detail="not a course lab's file name: expected <student>/<NN>_*.ipynb or "
                                       "<student>_<NN>_*.ipynb with NN one of the course's labs"))
            continue
        found[(student, match["lab"])].append(path)
    submissions = []
    for (student, lab), paths in sorted(found.items()):
        paths.sort(key=lambda p: (p.stat().st_mtime, str(p)), reverse=True)
        submissions.append(Submission(student, lab, paths[0], paths[1:], str(paths[0].relative_to(root))))
    return submissions, unplaced


# -- the child: one notebook, its exercises one after the other ----------------------------------------


def child_main(spec_path: str) -> int:
    """`python -m course.grading.grade --child SPEC`: grade one notebook; write one JSON line per event.

    The work runs in a forked grandchild, so an answer that kills its parent kills this small
    supervisor, not the grader; the grader sees the exit and kills the whole process group."""
    spec = json.loads(Path(spec_path).read_text())
    pid = os.fork()
    if pid:
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as a shell says it
    code = 0
    try:
        processes.die_with_parent()  # the supervisor's death is this process's too
        _grade_in_child(spec)
    except BaseException:  # noqa: BLE001 — whatever happened, the grader reads the events written so far
        code = 3
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _grade_in_child(spec: dict) -> None:
    from course.grading import run_check
    from course.grading.notebooks import load_answers

    events = os.open(spec["events"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    supervisor = os.getppid()

    def emit(**event):
        if os.getppid() != supervisor:  # the answer killed the process that watches it: report nothing more
            os._exit(4)
        os.write(events, (json.dumps(event) + "\n").encode())

    path = Path(spec["notebook"])
    for exercise_id in spec["exercises"]:
        seed = spec["seeds"][exercise_id]
        started = time.monotonic()
        emit(event="start", exercise=exercise_id, phase="loading your cells")
        try:
            answers = load_answers(path, exercise_id)
        except LookupError as error:
            emit(event="result", exercise=exercise_id, status="no cell", detail=str(error),
                 seconds=time.monotonic() - started, seed=seed)
            continue
        except BaseException as error:  # noqa: BLE001 — a cell may raise anything, SystemExit included
            emit(event="result", exercise=exercise_id, status="could not load",
                 detail=f"running the setup cells and the exercise cell raised {type(error).__name__}: {error}",
                 seconds=time.monotonic() - started, seed=seed)
            continue
        emit(event="phase", exercise=exercise_id, phase="running the checks")
        try:
            report = run_check(exercise_id, seed=seed, **answers)
        except BaseException as error:  # noqa: BLE001
            emit(event="result", exercise=exercise_id, status="problem",
                 detail=f"the checks stopped on {type(error).__name__}: {error}",
                 seconds=time.monotonic() - started, seed=seed)
            continue
        failing = [r for r in report.results if not r.passed]
        detail = one_line(report.problem) or report.not_started or (first_line(failing[0].note, limit=200) if failing else "")
        emit(event="result", exercise=exercise_id, status=report.status, passed=report.passed,
             first_failing=failing[0].name if failing else "", detail=detail,
             checks=f"{sum(r.passed for r in report.results)}/{len(report.results)}",
             seconds=time.monotonic() - started, seed=report.seed if report.seed is not None else seed)


# -- the grader: a child per notebook, watched ----------------------------------------------------------


@dataclass
class Grader:
    out: Path
    timeout_s: float
    roles: Roles
    protected: set[str]
    seed: int | None = None

    def grade(self, submission: Submission) -> list[Row]:
        lab = manifest.load().lab(submission.lab)
        base = Row(submission.student, lab.id, "", "", notebook=submission.shown or submission.path.name)
        problem = _unreadable(submission.path)
        if problem:
            return [_row(base, exercise="*", status="unreadable", detail=problem)]
        rng = random.Random(f"{self.seed}:{submission.student}:{lab.id}") if self.seed is not None else random
        seeds = {e.id: rng.randrange(1, 10**6) for e in lab.exercises}
        remaining = [e.id for e in lab.exercises]
        rows: list[Row] = []
        while remaining:
            done = self._run_child(submission, base, remaining, seeds)
            rows.extend(done)
            graded = {r.exercise for r in done}
            remaining = [e for e in remaining if e not in graded]
        if submission.also:
            older = ", ".join(p.name for p in submission.also)
            for row in rows:
                row.detail = (row.detail + "; " if row.detail else "") + f"graded the newest notebook, not {older}"
        return rows

    def _run_child(self, submission: Submission, base: Row, exercises: list[str], seeds: dict) -> list[Row]:
        """Run a child on these exercises until it finishes, hangs or dies; the rows it got to."""
        work = Path(tempfile.mkdtemp(prefix=f"grade-{_safe(submission.student)}-{submission.lab}-",
                                     dir=self.out / "work"))
        spec = {"notebook": str(submission.path), "exercises": exercises, "seeds": seeds,
                "events": str(work / "events.jsonl")}
        (work / "spec.json").write_text(json.dumps(spec))
        role, conninfo = self.roles.create()
        # The instructor's .course stays the home (the shared NATS server lives there); only progress moves.
        env = {**os.environ, "DATABASE_URL": conninfo, "COURSE_PROGRESS_FILE": str(work / "progress.json"),
               "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
        env.pop("COURSE_DB", None)
        log_path = self.out / "logs" / f"{_safe(submission.student)}-{submission.lab}.log"
        rows: list[Row] = []
        try:
            with open(log_path, "a") as log:
                log.write(f"--- {submission.path} exercises {', '.join(exercises)}\n")
                log.flush()
                child = processes.start_group([sys.executable, "-m", "course.grading.grade", "--child",
                                               str(work / "spec.json")], cwd=work, env=env,
                                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
                rows = self._watch(child, base, work / "events.jsonl", exercises, seeds)
        finally:
            self.roles.drop(role)
            shutil.rmtree(work, ignore_errors=True)
        # With a role of its own the notebook could not drop anyone's schema: PostgreSQL refused it. Without
        # one, a schema that is gone is all we can see (dropped by it, or by someone else meanwhile: the
        # course's database is shared with the instructor's kernel and, in the test suite, other tests).
        lost = sorted(self.protected - schemas()) if role is None else []
        if lost:
            for row in rows:
                row.detail = (row.detail + "; " if row.detail else "") + f"schemas gone after it ran: {lost}"
            self.protected -= set(lost)  # said once
        return rows

    def _watch(self, child: subprocess.Popen, base: Row, events_path: Path, exercises: list[str],
               seeds: dict) -> list[Row]:
        rows: list[Row] = []
        current, phase, started = None, "starting", time.monotonic()
        offset = 0
        while True:
            code = child.poll()
            if events_path.exists():
                with open(events_path) as events:
                    events.seek(offset)
                    for line in events:
                        if not line.endswith("\n"):
                            break
                        offset += len(line.encode())
                        try:
                            event = json.loads(line)
                        except json.JSONDecodeError:
                            continue
                        if event.get("exercise") not in exercises:
                            continue
                        if event["event"] == "start":
                            current, phase, started = event["exercise"], event["phase"], time.monotonic()
                        elif event["event"] == "phase":
                            phase = event["phase"]
                        elif event["event"] == "result" and event["exercise"] not in {r.exercise for r in rows}:
                            rows.append(_row(base, exercise=event["exercise"], status=event["status"],
                                             passed=bool(event.get("passed")), seconds=event.get("seconds", 0),
                                             seed=event.get("seed"), first_failing=event.get("first_failing", ""),
                                             detail=event.get("detail", "")))
                            current, started = None, time.monotonic()
            if len(rows) == len(exercises):
                if code is None:
                    try:
                        child.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        pass
                processes.kill_group(child)
                return rows
            if code is not None:
                processes.kill_group(child)
                victim = current or next(e for e in exercises if e not in {r.exercise for r in rows})
                if code < 0 or code > 128:
                    number = -code if code < 0 else code - 128
                    how = f"killed by {_signal_name(number)}"
                else:
                    how = f"exit code {code}"
                rows.append(_row(base, exercise=victim, status="crashed", seconds=time.monotonic() - started,
                                 seed=seeds.get(victim), detail=f"its process ended ({how}) while {phase}"))
                return rows
            if current is not None and time.monotonic() - started > self.timeout_s:
                processes.kill_group(child)
                rows.append(_row(base, exercise=current, status="timed out", seconds=time.monotonic() - started,
                                 seed=seeds.get(current), detail=f"still {phase} after {self.timeout_s:g} s; stopped"))
                return rows
            if current is None and time.monotonic() - started > self.timeout_s + 60:  # never even started
                processes.kill_group(child)
                victim = next(e for e in exercises if e not in {r.exercise for r in rows})
                rows.append(_row(base, exercise=victim, status="timed out", seed=seeds.get(victim),
                                 detail="the grading process never began the next exercise"))
                return rows
            time.sleep(0.1)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _row(base: Row, **values) -> Row:
    row = Row(**{**asdict(base), **values})
    row.seconds = round(float(row.seconds or 0), 2)
    row.detail = one_line(row.detail, 400)
    row.first_failing = row.first_failing or ("" if row.status in {"passed", "failed"} else row.status)
    return row


def _unreadable(path: Path) -> str | None:
    import nbformat

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot read the file: {error}"
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return f"not a notebook: not JSON ({error})"
    try:
        notebook = nbformat.reads(text, as_version=4)
        notebook.cells  # noqa: B018
    except Exception as error:  # nbformat raises several kinds
        return f"not a notebook: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    return None


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60] or "student"


def grade(submissions_dir: Path, out: Path, *, jobs: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S,
          labs: list[str] | None = None, seed: int | None = None, progress: bool = True) -> list[Row]:
    """Grade every notebook under submissions_dir; write the gradebook into out; return its rows."""
    from tqdm.auto import tqdm

    from course.infra import db

    course = manifest.load()
    wanted = {course.lab(l).id for l in labs} if labs else {lab.id for lab in course.labs}
    if not submissions_dir.is_dir():
        raise CourseError(f"{submissions_dir} is not a folder of notebooks.")
    submissions, rows = find_submissions(submissions_dir, wanted)
    out.mkdir(parents=True, exist_ok=True)
    (out / "work").mkdir(exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    print(db.describe())
    roles = Roles()
    if not roles.available:
        print(f"Note: grading as the course's own database user ({roles.why_not}); "
              f"schemas are compared after each notebook instead.")
    grader = Grader(out, timeout_s, roles, protected={s for s in schemas() if not s.startswith(("check_", "t_"))},
                    seed=seed)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool, \
            tqdm(total=len(submissions), desc="grading", unit="notebook", disable=not progress) as bar:
        futures = {pool.submit(grader.grade, s): s for s in submissions}
        for future in as_completed(futures):
            submission = futures[future]
            try:
                rows.extend(future.result())
            except Exception as error:  # the grader's own failure on one notebook: a row, and go on
                rows.append(Row(submission.student, submission.lab, "*", "problem",
                                notebook=submission.path.name, first_failing="problem",
                                detail=f"the grader failed on it: {type(error).__name__}: {error}"))
            bar.update()
    order = {e.id: i for i, e in enumerate(course.exercises)}
    rows.sort(key=lambda r: (r.student, r.lab, order.get(r.exercise, -1)))
    write_csv(rows, out / "gradebook.csv")
    texts = []
    for lab in course.labs:
        if any(r.lab == lab.id for r in rows):
            text = summary(lab, rows)
            (out / f"summary-{lab.id}.md").write_text(text)
            texts.append(text)
    (out / "summary.md").write_text("\n".join(texts) or "No notebooks found.\n")
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course grade", description=__doc__.splitlines()[0],
                                     epilog="\n".join(__doc__.splitlines()[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submissions", type=Path, help="the folder of students' notebooks (layouts below)")
    parser.add_argument("--out", type=Path, default=Path("gradebook"),
                        help="where to write gradebook.csv, summary-NN.md and logs/ (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help="seconds one exercise may take, loading its cells and running its checks "
                             "(default: %(default)g)")
    parser.add_argument("--lab", action="append", dest="labs", metavar="NN",
                        help="grade only this lab (repeat for several; default: every lab found)")
    parser.add_argument("--seed", type=int, help="derive every check's random seed from this (default: random)")
    args = parser.parse_args(argv)
    rows = grade(args.submissions, args.out, jobs=args.jobs, timeout_s=args.timeout, labs=args.labs, seed=args.seed)
    count = Counter(r.status for r in rows)
    print(f"{len(rows)} rows: " + ", ".join(f"{n} {status}" for status, n in count.most_common()))
    print(f"Wrote {args.out / 'gradebook.csv'} and {args.out / 'summary.md'}.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        raise SystemExit(child_main(sys.argv[2]))
    raise SystemExit(main(sys.argv[1:]))

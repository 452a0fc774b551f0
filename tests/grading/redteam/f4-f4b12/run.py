"""Blind red team f4-f4b12, lab 12: write a copy of the lab notebook per answer (the exercise's cell
replaced by answers/<exercise>__<name>.py) and run `python -m course check 12 <copy> --exercise ...`.

usage: run.py [-j N] ANSWER_NAME...   (names without .py; results appended to results.tsv)
"""
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "12_capstone_stayhub.ipynb"
CELLS = {"checkout": "ac4d5e5b", "safe_checkout": "b374957a", "booking_worker": "32f94885"}
COPIES = HERE / "copies"
LOGS = HERE / "logs"


def notebook_for(name: str) -> Path:
    exercise = name.split("__")[0]
    source = (HERE / "answers" / f"{name}.py").read_text()
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = source.splitlines(keepends=True)
            break
    else:
        raise SystemExit(f"no cell for {exercise}")
    COPIES.mkdir(exist_ok=True)
    path = COPIES / f"12_{name}.ipynb"
    path.write_text(json.dumps(nb, indent=1))
    return path


def load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


DEADLINE = "17:05"  # UTC: start no new check after this (the brief's clock)


def run(name: str) -> str:
    exercise = "12." + name.split("__")[0]
    if time.strftime("%H:%M", time.gmtime()) >= DEADLINE:
        print(f"{name}: not started, past {DEADLINE}", flush=True)
        return ""
    LOGS.mkdir(exist_ok=True)
    try:  # another lane took it already
        (LOGS / f"{name}.started").open("x").close()
    except FileExistsError:
        print(f"{name}: started by another lane", flush=True)
        return ""
    path = notebook_for(name)
    started, load_before = time.monotonic(), load()
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "12", str(path),
                           "--exercise", exercise], cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    LOGS.mkdir(exist_ok=True)
    out = done.stdout + done.stderr
    (LOGS / f"{name}.log").write_text(out)
    verdict = "PASS" if done.returncode == 0 else "FAIL"
    message = " | ".join(line.strip() for line in out.splitlines() if line.strip())[:1500].replace("\t", " ")
    row = f"{name}\t{exercise}\t{verdict}\t{seconds:.0f}\t{load_before:.1f}\t{message}\n"
    with open(HERE / "results.tsv", "a") as results:
        results.write(row)
    print(row, end="", flush=True)
    return row


def failing_rows(name: str) -> str:
    """The ✗ rows of an answer's log and their next four lines (for lab12.md)."""
    lines = (LOGS / f"{name}.log").read_text().splitlines()
    keep = []
    for i, line in enumerate(lines):
        if line.strip().startswith("✗") or "could not load" in line:
            keep.extend(l.strip() for l in lines[i:i + 5])
    return " / ".join(keep)




def table(exercise: str) -> str:
    """Markdown rows for lab12.md: answer, rule (the answer file's first comment line), verdict, time,
    load, the failing rows (or the passed line)."""
    rows = ["| answer | rule it breaks | verdict | s (load) | the check's failing row |", "|---|---|---|---|---|"]
    for line in (HERE / "results.tsv").read_text().splitlines()[1:]:
        name, ex, verdict, seconds, load_, _ = line.split("\t", 5)
        if ex != "12." + exercise:
            continue
        comment = (HERE / "answers" / f"{name}.py").read_text().splitlines()[0].lstrip("# ")
        wrong = not comment.startswith("correct")
        rule = comment.split(")")[0].replace("WRONG (", "") if wrong else "correct"
        log = (LOGS / f"{name}.log").read_text()
        what = failing_rows(name) if verdict == "FAIL" else log.split("\n\n")[1].splitlines()[0]
        flag = " **FALSE PASS**" if wrong and verdict == "PASS" else " **FALSE FAIL**" if not wrong and verdict == "FAIL" else ""
        rows.append(f"| `{name}.py` | {rule} | {verdict}{flag} | {seconds} ({load_}) | {what.replace('|', '/')} |")
    return "\n".join(rows)


if __name__ == "__main__" and sys.argv[1:2] == ["--table"]:
    print(table(sys.argv[2]))
elif __name__ == "__main__":
    args = sys.argv[1:]
    jobs = 1
    if args[:1] == ["-j"]:
        jobs, args = int(args[1]), args[2:]
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(run, args))

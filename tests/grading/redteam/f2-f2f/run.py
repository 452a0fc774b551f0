"""Round f2 (f2f), lab 12: run every answer in answers/ through `python -m course check`.

Each answer file starts with three comment lines:
    # exercise: 12.name
    # expect: wrong | correct
    # rule: the rule it breaks (or "correct: how it differs")
The runner writes a copy of labs/12_capstone_stayhub.ipynb with the exercise's answer cell replaced,
runs the check on it, and appends a row to the results file (default results_blind.tsv).
Usage: python run.py [--out results_after.tsv] [--jobs 2] [--loop] [names...]
"""
import argparse
import concurrent.futures as cf
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "12_capstone_stayhub.ipynb"
CELLS = {"12.checkout": "ac4d5e5b", "12.safe_checkout": "b374957a",
         "12.booking_worker": "32f94885", "12.invoice_worker": "4f0ba0bb"}


def header(path):
    text = path.read_text()
    fields = dict(re.findall(r"^# (exercise|expect|rule): (.*)$", text, re.M))
    return text, fields


def summary(out):
    """The check's first line and its first failing rule (with the example under it), or its last line."""
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    first = next((l for l in lines if l.startswith("12.")), "")
    for n, line in enumerate(lines):
        if line.startswith("✗") or "Traceback" in line:
            return " | ".join([first] + lines[n:n + 2])
    return first or (lines[-1] if lines else "")


def run(path, seed):
    text, f = header(path)
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[f["exercise"]]:
            cell["source"] = text
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "12_capstone_stayhub.ipynb"
        copy.write_text(json.dumps(nb))
        started = time.monotonic()
        cmd = [sys.executable, "-m", "course", "check", "12", str(copy), "--exercise", f["exercise"]]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        seconds = time.monotonic() - started
    out = (done.stdout + done.stderr).strip()
    verdict = "PASS" if done.returncode == 0 else "FAIL"
    message = summary(out)
    (HERE / "logs").mkdir(exist_ok=True)
    (HERE / "logs" / f"{path.stem}.{args.out.split('.')[0]}.log").write_text(out)
    return [path.stem, f["exercise"], f["expect"], f["rule"], verdict, f"{seconds:.0f}",
            message.replace("\t", " ")[:400]]


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="results_blind.tsv")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", type=int)
    p.add_argument("--loop", action="store_true", help="keep picking up new answers until none is left")
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    out = HERE / args.out
    if not out.exists():
        out.write_text("answer\texercise\texpect\trule\tverdict\tseconds\tmessage\n")
    while True:
        done = {l.split("\t")[0] for l in out.read_text().splitlines()[1:]}
        todo = [q for q in sorted((HERE / "answers").glob("*.py"))
                if q.stem not in done and (not args.names or q.stem in args.names)]
        if not todo:
            break
        with cf.ThreadPoolExecutor(args.jobs) as pool:
            for row in pool.map(lambda q: run(q, args.seed), todo[: args.jobs]):
                with out.open("a") as fh:
                    fh.write("\t".join(row) + "\n")
                print("\t".join(row[:6]), flush=True)
        if not args.loop:
            continue

"""Round f2 (f2a) blind runner: each answer file replaces its exercise's cell in a copy of the lab's
notebook, and `python -m course check NN copy --exercise NN.name` judges it, one at a time.

    .venv/bin/python tests/grading/redteam/f2-f2a/run.py tests/grading/redteam/f2-f2a/results_after.tsv ANSWER.py ...

Each answer file starts with `# exercise: NN.name`, `# kind: wrong|correct`, `# rule: ...`.
A line per answer is appended to the results file: file, exercise, kind, verdict, seconds, load, message.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]  # the checkout: tests/grading/redteam/f2-f2a/run.py
HERE = Path(__file__).resolve().parent
CELLS = {  # the answer cell of each exercise, by cell id in labs/
    "00.first_job": ("00", "eaef595a"),
    "01.receipts_lost": ("01", "2e582a5b"),
    "01.lose_a_receipt": ("01", "00cfc1b5"),
    "02.place_order": ("02", "a4f070c6"),
    "02.send_receipt": ("02", "7110907b"),
}


def header(text, name):
    match = re.search(rf"^# {name}: (.*)$", text, re.M)
    return match.group(1).strip() if match else ""


def run(answer: Path, results: Path) -> None:
    text = answer.read_text()
    exercise, kind, rule = header(text, "exercise"), header(text, "kind"), header(text, "rule")
    lab, cell_id = CELLS[exercise]
    [source] = ROOT.glob(f"labs/{lab}_*.ipynb")
    notebook = json.loads(source.read_text())
    [cell] = [c for c in notebook["cells"] if c.get("id") == cell_id]
    cell["source"] = text.splitlines(keepends=True)
    with tempfile.TemporaryDirectory(prefix="f2a-") as folder:
        copy = Path(folder) / source.name
        copy.write_text(json.dumps(notebook))
        started = time.monotonic()
        done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                               "--exercise", exercise], cwd=ROOT, capture_output=True, text=True, timeout=1800)
        seconds = time.monotonic() - started
    output = (done.stdout + done.stderr).strip()
    verdict = "pass" if done.returncode == 0 else "fail"
    load = os.getloadavg()[0]
    message = " | ".join(line.strip() for line in output.splitlines() if line.strip())[:1500]
    relative = answer.relative_to(HERE)
    with results.open("a") as out:
        out.write(f"{relative}\t{exercise}\t{kind}\t{verdict}\t{seconds:.1f}\t{load:.1f}\t{message}\n")
    flag = "FALSE PASS" if kind == "wrong" and verdict == "pass" else (
        "FALSE FAIL" if kind == "correct" and verdict == "fail" else "ok")
    print(f"{relative}: {kind} -> {verdict} ({seconds:.1f} s, load {load:.1f}) {flag}", flush=True)
    (Path("/tmp") / "f2a-logs").mkdir(exist_ok=True)
    (Path("/tmp") / "f2a-logs" / (str(relative).replace("/", "__") + ".log")).write_text(output + "\n")


if __name__ == "__main__":
    results = Path(sys.argv[1])
    for name in sys.argv[2:]:
        run(Path(name).resolve(), results)

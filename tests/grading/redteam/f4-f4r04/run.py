"""Round f4 (f4r04), lab 04: run each answer in answers/*.py through `python -m course check`.

Each answer file starts with three comment lines:
    # exercise: 04.fenced_ack
    # kind: wrong | correct | arguable
    # rule: the rule it breaks (or "correct")
and the rest is the answer cell. The runner writes a copy of labs/04_leases.ipynb with that cell
replaced, runs the check on it (one at a time), and appends a row to results_<tag>.tsv:
name, exercise, kind, rule, verdict (pass/fail), seconds, the check's message.
Usage: run.py TAG [name ...]
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "04_leases.ipynb"
CELLS = {"04.fenced_ack": "da9de446", "04.heartbeat": "950715d2"}


def parse(path):
    text = path.read_text()
    meta, body = {}, []
    for line in text.splitlines():
        m = re.match(r"# (exercise|kind|rule): (.*)", line)
        if m and not body:
            meta[m[1]] = m[2].strip()
        else:
            body.append(line)
    return meta, "\n".join(body).strip() + "\n"


def run_one(path, out):
    meta, source = parse(path)
    nb = json.loads(LAB.read_text())
    cell = next(c for c in nb["cells"] if c.get("id") == CELLS[meta["exercise"]])
    cell["source"] = source.splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "04_leases.ipynb"
        copy.write_text(json.dumps(nb))
        start = time.monotonic()
        proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "04", str(copy),
                               "--exercise", meta["exercise"]], cwd=ROOT, capture_output=True, text=True,
                              timeout=900)
        took = time.monotonic() - start
    verdict = "pass" if proc.returncode == 0 else "fail"
    text = (proc.stdout + proc.stderr).strip()
    (HERE / "logs").mkdir(exist_ok=True)
    (HERE / "logs" / f"{out.stem}_{path.stem}.txt").write_text(text + "\n")
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    bad = [l for l in lines if re.search(r"✗|FAIL|fail|Error|error|expected|yours", l)]
    message = " | ".join(bad[:3]) if verdict == "fail" else (lines[-1] if lines else "")
    row = [path.stem, meta["exercise"], meta["kind"], meta["rule"], verdict, f"{took:.1f}", message[:400]]
    with out.open("a") as f:
        f.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in row) + "\n")
    print("\t".join(row[:6]), "\t", message[:160], flush=True)


if __name__ == "__main__":
    tag = sys.argv[1]
    names = sys.argv[2:]
    out = HERE / f"results_{tag}.tsv"
    files = sorted((HERE / "answers").glob("*.py"))
    if names:
        files = [f for f in files if f.stem in names]
    for f in files:
        run_one(f, out)

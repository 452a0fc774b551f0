"""Round f3 (f3a), blind red team, labs 01 and 02: run every answer in answers/ through
`python -m course check`, one at a time, and append a row to results.tsv.

Each answer file starts with three comment lines:
    # exercise: 01.receipts_lost
    # kind: wrong | correct
    # rule: the rule it breaks (or "correct")
The rest is the cell that replaces the exercise's answer cell in a copy of labs/NN_*.ipynb.

    .venv/bin/python tests/grading/redteam/f3-f3a/run.py [answer-name-glob ...]
"""
import fnmatch
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LABS = {"01": ROOT / "labs/01_background_thread.ipynb", "02": ROOT / "labs/02_queue_and_jobs.ipynb"}


def header(text):
    meta = {}
    for line in text.splitlines()[:3]:
        key, _, value = line.lstrip("# ").partition(":")
        meta[key.strip()] = value.strip()
    return meta


def notebook_with(answer_path, meta):
    lab, _ = meta["exercise"].split(".", 1)
    nb = json.loads(LABS[lab].read_text())
    marker = f'NotImplementedError("{meta["exercise"]}:'
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, (answer_path, len(cells))
    cells[0]["source"] = answer_path.read_text()
    out = HERE / "nb" / f"{answer_path.stem}.ipynb"
    out.write_text(json.dumps(nb))
    return lab, out


def load_avg():
    return os.getloadavg()[0]


def main(patterns):
    answers = sorted(HERE.glob("answers/*.py"))
    if patterns:
        answers = [a for a in answers if any(fnmatch.fnmatch(a.stem, p) for p in patterns)]
    results = HERE / os.environ.get("F3_RESULTS", "results.tsv")  # results_after.tsv: the re-run after the fixes
    if not results.exists():
        results.write_text("answer\texercise\tkind\trule\tverdict\tcheck_s\tload\tmessage\n")
    for answer in answers:
        meta = header(answer.read_text())
        lab, nb = notebook_with(answer, meta)
        load = load_avg()
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "course", "check", lab, str(nb), "--exercise", meta["exercise"]],
                             cwd=ROOT, capture_output=True, text=True, timeout=900)
        took = time.monotonic() - started
        text = (run.stdout + run.stderr).strip()
        verdict = "pass" if run.returncode == 0 else "fail"
        (HERE / "nb" / f"{answer.stem}.out").write_text(text + "\n")
        message = " | ".join(line.strip() for line in text.splitlines() if line.strip())[:1500]
        with results.open("a") as f:
            f.write("\t".join([answer.stem, meta["exercise"], meta["kind"], meta["rule"], verdict,
                               f"{took:.1f}", f"{load:.1f}", message.replace("\t", " ")]) + "\n")
        print(answer.stem, verdict, f"{took:.1f}s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

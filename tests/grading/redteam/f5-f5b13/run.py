"""Round f5 (f5b13), lab 13: write one notebook copy per answer and run its check, one at a time.

    .venv/bin/python tests/grading/redteam/f5-f5b13/run.py [answer-stem ...]

An answer file is answers/<exercise>__<name>.py (exercise: keep_alive, publish_retry, choose); its text
replaces the exercise's code cell. Results are appended to results.tsv: answer, exercise, verdict,
seconds, the load average when it started, the check's last lines.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "13_replicated_broker.ipynb"
CELLS = {"keep_alive": "e3e5dd2f", "publish_retry": "56e84e3b", "choose": "0b4c0218"}
WORK = HERE / "_copies"


def run(answer: Path) -> None:
    exercise = answer.stem.split("__")[0]
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = answer.read_text()
    WORK.mkdir(exist_ok=True)
    copy = WORK / f"13_{answer.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    load = os.getloadavg()[0]
    began = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "13", str(copy),
                           "--exercise", f"13.{exercise}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    took = time.monotonic() - began
    verdict = "pass" if proc.returncode == 0 else "fail"
    out = (proc.stdout + proc.stderr).strip().replace("\t", " ")
    (WORK / f"{answer.stem}.out").write_text(out)
    message = " | ".join(line.strip() for line in out.splitlines() if line.strip())[-1500:]
    with open(HERE / "results.tsv", "a") as f:
        f.write(f"{answer.stem}\t13.{exercise}\t{verdict}\t{took:.0f}\t{load:.1f}\t{message}\n")
    print(answer.stem, verdict, f"{took:.0f}s", flush=True)


if __name__ == "__main__":
    names = sys.argv[1:]
    done = set()
    if (HERE / "results.tsv").exists():
        done = {line.split("\t")[0] for line in (HERE / "results.tsv").read_text().splitlines()}
    answers = [HERE / "answers" / f"{n}.py" for n in names] if names else sorted((HERE / "answers").glob("*.py"))
    for answer in answers:
        if answer.stem not in done:
            run(answer)

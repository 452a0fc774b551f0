"""Blind red-team runner for lab 05: one notebook copy per answer, one check at a time.

Each answer file starts with comment lines:
  # exercise: 05.relay
  # kind: wrong | correct
  # rule: <rule it breaks, or "correct">
Usage: python run.py OUT.tsv [answer files...]   (default: every answers/*.py)
"""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] if (Path(__file__).resolve().parents[1] / "labs").exists() else Path(__file__).resolve().parents[4]
LAB = ROOT / "labs" / "05_dual_write_outbox.ipynb"
CELL = {"05.relay": "d57630a9", "05.cancel_order": "180efc81"}
HERE = Path(__file__).resolve().parent
ANSWERS = HERE / ("answers" if (HERE / "answers").exists() else "lab05_answers")
WORK = Path("/tmp/f4r05_nb")


def header(text, key):
    m = re.search(rf"^# {key}: (.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def run(path: Path):
    text = path.read_text()
    exercise = header(text, "exercise")
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELL[exercise]:
            cell["source"] = text
    WORK.mkdir(exist_ok=True)
    copy = WORK / f"05_{path.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    started = time.monotonic()
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "05", str(copy),
                           "--exercise", exercise], cwd=ROOT, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - started
    out = (done.stdout + done.stderr).strip()
    verdict = "pass" if done.returncode == 0 else "fail"
    (WORK / f"{path.stem}.log").write_text(out)
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    bad = [line for line in lines if not line.startswith(("✓", "Checking"))]
    message = " | ".join(bad if verdict == "fail" else lines[1:2])[:900]
    return exercise, header(text, "kind"), header(text, "rule"), verdict, f"{took:.1f}", message


def main():
    out = Path(sys.argv[1])
    files = [Path(p) for p in sys.argv[2:]] or sorted(ANSWERS.glob("*.py"))
    with out.open("a") as tsv:
        for path in files:
            row = (path.stem,) + run(path)
            print("\t".join(row), flush=True)
            tsv.write("\t".join(c.replace("\t", " ") for c in row) + "\n")
            tsv.flush()


if __name__ == "__main__":
    main()

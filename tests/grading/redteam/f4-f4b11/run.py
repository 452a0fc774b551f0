"""Blind red team f4-f4b11, lab 11: run every answer in answers/ through `python -m course check`.

Each answers/<exercise>__<name>.py starts with two comment lines:
    # expect: wrong | correct
    # rule: the rule it breaks (or "correct: how it differs")
Its text replaces the exercise's answer cell in a copy of labs/11_*.ipynb; the check runs on the copy,
one answer at a time. Results go to results.tsv (appended; an answer already there is skipped) and the
full output to logs/<name>.log. `python run.py --loop` keeps picking up new answers until STOP exists.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "11_watching_the_queue.ipynb"
CELLS = {"oldest_waiting": "73a8d0b4", "alerts": "5c35e460", "vacuum_blockers": "fce50713"}
TMP = Path("/tmp/f4b11-notebooks")
RESULTS = HERE / "results.tsv"


def done() -> set[str]:
    if not RESULTS.exists():
        return set()
    return {line.split("\t")[0] for line in RESULTS.read_text().splitlines()[1:] if line}


def run(answer: Path) -> None:
    exercise = answer.stem.split("__")[0]
    text = answer.read_text()
    head = dict(line[2:].split(": ", 1) for line in text.splitlines()[:2])
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = text.splitlines(keepends=True)
    TMP.mkdir(exist_ok=True)
    copy = TMP / f"11_{answer.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    load = os.getloadavg()[0]
    start = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "11", str(copy),
                           "--exercise", f"11.{exercise}"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    took = time.monotonic() - start
    out = proc.stdout + proc.stderr
    (HERE / "logs" / f"{answer.stem}.log").write_text(out)
    verdict = "pass" if proc.returncode == 0 else "fail"
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    message = " | ".join(lines[:6]).replace("\t", " ")[:900]
    if not RESULTS.exists():
        RESULTS.write_text("answer\texercise\texpect\trule\tverdict\tseconds\tload1\tmessage\n")
    with RESULTS.open("a") as f:
        f.write(f"{answer.stem}\t11.{exercise}\t{head['expect']}\t{head['rule']}\t{verdict}\t{took:.1f}\t"
                f"{load:.1f}\t{message}\n")
    print(answer.stem, head["expect"], verdict, f"{took:.1f}s", flush=True)


def main() -> None:
    loop = "--loop" in sys.argv
    while True:
        todo = [a for a in sorted((HERE / "answers").glob("*.py")) if a.stem not in done()]
        for answer in todo:
            run(answer)
            break
        if not todo:
            if not loop or (HERE / "STOP").exists():
                return
            time.sleep(3)




def failing_row(log: str) -> str:
    """The check's failing row in full (the ✗ line and its indented explanation), or its 'passed' line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("✗"):
            block = [line.strip()]
            for more in lines[i + 1:]:
                if not more.startswith("      "):
                    break
                block.append(more.strip())
            return " / ".join(block)
    for line in lines:
        if "checks passed" in line or "Traceback" in line or "Error" in line:
            return line.strip()
    return " / ".join(l.strip() for l in lines if l.strip())[:600]


def table() -> None:
    """Rewrite results.tsv's message column with each answer's failing row (from logs/)."""
    rows = RESULTS.read_text().splitlines()
    out = [rows[0]]
    for row in rows[1:]:
        cells = row.split("\t")
        log = HERE / "logs" / f"{cells[0]}.log"
        if log.exists():
            cells[7] = failing_row(log.read_text()).replace("\t", " ")
        out.append("\t".join(cells))
    RESULTS.write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    table() if "--table" in sys.argv else main()

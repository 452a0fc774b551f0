"""Runs every answer of this round, one at a time: a copy of the lab's notebook with the exercise's cell
replaced, then `python -m course check NN copy --exercise NN.name`. Writes results_<tag>.tsv.

    .venv/bin/python tests/grading/redteam/f2-f2e/run.py after [filter]
"""
import json, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE
while not (ROOT / "labs").is_dir():
    ROOT = ROOT.parent
CELL = {"09.route": "2522b5f5", "09.newsletter": "ae0abf14", "10.in_progress": "f2949261", "10.pool": "ecd52897",
        "11.oldest_waiting": "73a8d0b4", "11.alerts": "5c35e460", "11.vacuum_blockers": "fce50713"}
NOTEBOOK = {"09": "09_one_queue_or_two", "10": "10_littles_law", "11": "11_watching_the_queue"}


def run(answer: Path) -> tuple[str, str, float]:
    lab = answer.parent.name[3:5]
    exercise = f"{lab}.{answer.name.split('__')[0]}"
    nb = json.loads((ROOT / "labs" / f"{NOTEBOOK[lab]}.ipynb").read_text())
    [cell] = [c for c in nb["cells"] if c.get("id") == CELL[exercise]]
    cell["source"] = answer.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / f"{NOTEBOOK[lab]}.ipynb"
        copy.write_text(json.dumps(nb))
        started = time.monotonic()
        done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                               "--exercise", exercise], cwd=ROOT, capture_output=True, text=True, timeout=1200)
        took = time.monotonic() - started
    out = (done.stdout + done.stderr).strip()
    verdict = "pass" if done.returncode == 0 else "FAIL"
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    bad = [i for i, line in enumerate(lines) if line.startswith("✗")]
    keep = lines[1:2] + (lines[bad[0]:bad[0] + 6] if bad else lines[-2:])
    message = " | ".join(keep)[:900]
    return exercise, verdict, message, took


if __name__ == "__main__":
    tag = sys.argv[1]
    pick = sys.argv[2] if len(sys.argv) > 2 else ""
    out = HERE / f"results_{tag}.tsv"
    answers = sorted(p for p in HERE.glob("answers/lab*/*.py") if pick in str(p))
    with out.open("a") as sink:
        for answer in answers:
            exercise, verdict, message, took = run(answer)
            row = f"{exercise}\t{answer.name}\t{verdict}\t{took:.1f}\t{message}"
            print(row, flush=True)
            sink.write(row + "\n")

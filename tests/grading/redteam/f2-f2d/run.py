"""Blind red-team runner (round f2, f2d): each answer file replaces its exercise's cell in a copy of the
learner notebook, then `python -m course check NN copy.ipynb --exercise NN.name` judges it.

    python tests/grading/redteam/f2-f2d/run.py [--after] [glob ...]   (answers: answers/<exercise>__<label>.py)

Verdicts go to results_blind.tsv (the blind round), or with --after to results_after.tsv.

An answer file's first line is `# RULE: <rule it breaks, or "correct">`.
"""
import json, subprocess, sys, tempfile, time, glob, os
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
CELLS = {"07.backoff": ("labs/07_retries_dead_letters.ipynb", "f51bbf1a"),
         "07.route": ("labs/07_retries_dead_letters.ipynb", "dad78ec3"),
         "08.plan": ("labs/08_scheduled_jobs.ipynb", "968a3c87"),
         "08.tick": ("labs/08_scheduled_jobs.ipynb", "54e2019c")}


def run(answer: Path, out):
    exercise, label = answer.stem.split("__")
    exercise = exercise.replace("_", ".", 1)
    notebook, cell_id = CELLS[exercise]
    nb = json.loads((ROOT / notebook).read_text())
    code = answer.read_text()
    rule = code.splitlines()[0].removeprefix("# RULE:").strip()
    for cell in nb["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = code
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(notebook).name
        copy.write_text(json.dumps(nb))
        started = time.monotonic()
        done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", exercise[:2], str(copy),
                               "--exercise", exercise], cwd=ROOT, capture_output=True, text=True, timeout=1800)
        took = time.monotonic() - started
    text = (done.stdout + done.stderr).strip()
    verdict = "PASS" if done.returncode == 0 else "FAIL"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # the summary line, then what failed (the blind round kept the first 600 characters of everything instead)
    message = " | ".join(lines[1:2] + [line for line in lines if line.startswith(("✗", "got", "expected", "e.g."))])[:900]
    load = os.getloadavg()[0]
    row = "\t".join([exercise, label, rule, verdict, f"{took:.1f}", f"{load:.1f}", message.replace("\t", " ")])
    print(row, flush=True)
    out.write(row + "\n")
    out.flush()


if __name__ == "__main__":
    after = "--after" in sys.argv[1:]
    patterns = [a for a in sys.argv[1:] if a != "--after"] or ["*"]
    answers = sorted({Path(p) for pat in patterns for p in glob.glob(str(HERE / "answers" / f"{pat}.py"))},
                     reverse=bool(os.environ.get("REDTEAM_REVERSE")))
    with open(HERE / ("results_after.tsv" if after else "results_blind.tsv"), "a") as out:
        for answer in answers:
            run(answer, out)

"""Run each red-team answer through `python -m course check`, one at a time; append to a tsv.

usage: run.py OUT.tsv [answer.py ...]   (default: every answer under answers/)
"""
import json
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE
while not (ROOT / "labs").is_dir():
    ROOT = ROOT.parent
EXERCISES = {  # answer-file prefix -> (lab, exercise, the answer cell's id)
    "relay": ("05", "05.relay", "d57630a9"),
    "cancel": ("05", "05.cancel_order", "180efc81"),
    "confirm": ("06", "06.confirm_booking", "e51f2c96"),
    "send": ("06", "06.send_confirmation", "fcfdce83"),
}
NOTEBOOKS = {"05": "labs/05_dual_write_outbox.ipynb", "06": "labs/06_idempotency.ipynb"}
SCRATCH = pathlib.Path("/tmp/f2c_redteam")


def run(answer: pathlib.Path) -> tuple[str, str, float]:
    lab, exercise, cell_id = EXERCISES[answer.name.split("_")[0]]
    notebook = json.loads((ROOT / NOTEBOOKS[lab]).read_text())
    cell = next(c for c in notebook["cells"] if c.get("id") == cell_id)
    cell["source"] = answer.read_text()
    SCRATCH.mkdir(exist_ok=True)
    copy = SCRATCH / f"{lab}_{answer.stem}.ipynb"
    copy.write_text(json.dumps(notebook))
    started = time.monotonic()
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                           "--exercise", exercise], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    out = (done.stdout + done.stderr).strip()
    (SCRATCH / f"{lab}_{answer.stem}.out").write_text(out)
    verdict = "PASS" if done.returncode == 0 else "FAIL"
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    said = [line for line in lines if line.startswith(("✗", "Traceback")) or " checks " in line or "Error" in line]
    return verdict, " | ".join(said or lines[-3:])[:1500], elapsed


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    answers = [pathlib.Path(a) for a in sys.argv[2:]] or sorted(HERE.glob("answers/*.py"))
    for answer in answers:
        load = open("/proc/loadavg").read().split()[0]
        verdict, message, elapsed = run(answer)
        kind = "correct" if answer.stem.split("_")[1].startswith("c") else "wrong"
        line = f"{answer.stem}\t{kind}\t{verdict}\t{elapsed:.0f}\t{load}\t{message}"
        print(line, flush=True)
        with out.open("a") as f:
            f.write(line.replace("\n", " ") + "\n")


if __name__ == "__main__":
    main()

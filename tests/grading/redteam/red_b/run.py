"""Run every red-team answer through `python -m course check`: a copy of the lab's notebook per answer,
with the exercise's cell replaced by the answer. Writes redteam/results.jsonl (one line per answer)."""
import concurrent.futures as cf
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]  # the checkout: tests/grading/redteam/red_b/run.py
CELLS = {"05.place_order": "5fb72bfc", "05.relay": "d57630a9", "06.confirm_booking": "e51f2c96",
         "06.send_confirmation": "fcfdce83", "07.backoff": "f51bbf1a", "07.route": "dad78ec3",
         "08.plan": "968a3c87", "08.tick": "54e2019c"}
NOTEBOOKS = {"05": "05_dual_write_outbox", "06": "06_idempotency", "07": "07_retries_dead_letters",
             "08": "08_scheduled_jobs"}
TMP = Path("/tmp/redb/nb")


def run(answer: Path) -> dict:
    exercise = answer.parent.name  # redteam/answers/05.relay/w1_limit10.py
    lab = exercise[:2]
    text = answer.read_text()
    kind = re.search(r"^# kind: (\w+)", text, re.M).group(1)
    rule = re.search(r"^# rule: (.*)$", text, re.M).group(1)
    nb = json.loads((ROOT / "labs" / f"{NOTEBOOKS[lab]}.ipynb").read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = text.splitlines(keepends=True)
    TMP.mkdir(parents=True, exist_ok=True)
    copy = TMP / f"{NOTEBOOKS[lab]}-{exercise}-{answer.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    started = time.monotonic()
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                           "--exercise", exercise], cwd=ROOT, capture_output=True, text=True, timeout=900)
    output = (done.stdout + done.stderr).strip()
    return {"exercise": exercise, "answer": answer.stem, "kind": kind, "rule": rule,
            "passed": done.returncode == 0, "seconds": round(time.monotonic() - started, 1), "output": output}


if __name__ == "__main__":
    pattern = sys.argv[1] if len(sys.argv) > 1 else "*/*.py"
    if pattern.startswith("@"):  # a file that lists the answers to run, one a line
        answers = [ROOT / line for line in Path(pattern[1:]).read_text().split()]
    else:
        answers = sorted((Path(__file__).resolve().parent / "answers").glob(pattern))
    out = Path(__file__).resolve().parent / "results.jsonl"
    with cf.ThreadPoolExecutor(int(sys.argv[2]) if len(sys.argv) > 2 else 2) as pool, out.open("a") as log:
        for result in pool.map(run, answers):
            log.write(json.dumps(result) + "\n")
            log.flush()
            verdict = "PASS" if result["passed"] else "fail"
            flag = " <-- FALSE PASS" if result["passed"] and result["kind"] == "wrong" else \
                   " <-- FALSE FAIL" if not result["passed"] and result["kind"] == "correct" else ""
            print(f"{result['exercise']:<22} {result['answer']:<28} {result['kind']:<7} {verdict} "
                  f"{result['seconds']:>6}s{flag}", flush=True)

"""Run every red-team answer through `python -m course check`, one notebook copy per answer.

An answer is labNN_answers (beside this file)/<exercise>__<name>.py; its first lines say
`# expect: wrong|correct` and `# rule: <what it breaks>`. Results are appended to results.jsonl. Run from the checkout: .venv/bin/python tests/grading/redteam/red0/run.py tests/grading/redteam/red0/lab03_answers/*.py
"""
import json, re, subprocess, sys, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]  # the checkout
LABS = {"00": "00_start_here", "01": "01_background_thread", "02": "02_queue_and_jobs",
        "03": "03_postgres_queue", "04": "04_leases"}
FUNC = {"00.first_job": "enqueue_welcome", "01.receipts_lost": "receipts_lost",
        "01.lose_a_receipt": "lose_a_receipt", "02.place_order": "place_order_and_enqueue",
        "02.send_receipt": "send_receipt", "03.claim": "claim", "03.claim_batch": "claim_batch",
        "04.fenced_ack": "ack", "04.heartbeat": "extend_lease"}
OUT = HERE / "results.jsonl"
TMP = Path("/tmp/red0_runs"); TMP.mkdir(exist_ok=True)


def run(answer: Path):
    exercise, name = answer.stem.split("__", 1)
    exercise = exercise.replace("_", ".", 1)
    lab = exercise[:2]
    nb = json.loads((ROOT / "labs" / f"{LABS[lab]}.ipynb").read_text())
    marker = f"NotImplementedError(\"{exercise}:"
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, (answer, len(cells))
    cells[0]["source"] = answer.read_text()
    copy = TMP / f"{LABS[lab]}__{answer.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    text = answer.read_text()
    expect = re.search(r"# expect: (\w+)", text).group(1)
    rule = re.search(r"# rule: (.*)", text).group(1)
    started = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                           "--exercise", exercise], cwd=ROOT, capture_output=True, text=True)
    took = time.monotonic() - started
    out = proc.stdout + proc.stderr
    verdict = "pass" if proc.returncode == 0 else "fail"
    row = {"answer": answer.name, "exercise": exercise, "expect": expect, "rule": rule, "verdict": verdict,
           "took_s": round(took, 1), "output": out[-3000:]}
    with OUT.open("a") as f:
        f.write(json.dumps(row) + "\n")
    flag = ("FALSE PASS" if expect == "wrong" and verdict == "pass" else
            "FALSE FAIL" if expect == "correct" and verdict == "fail" else "ok")
    print(f"{answer.name:60} {expect:8} {verdict:5} {took:6.1f}s {flag}", flush=True)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        run(Path(arg))

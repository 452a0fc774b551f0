"""Blind red team (issue 22): put each answer into a copy of its lab's notebook and run its check.

Each answer is redteam/labNN_answers/<exercise>__<slug>.py whose first lines are
  # expect: wrong|correct
  # rule: the rule it breaks (or what makes it different)
"""
import json, re, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]  # tests/grading/redteam/red_a/ -> the checkout
HERE = Path(__file__).resolve().parent


def notebook_for(lab):
    return next((ROOT / "labs").glob(f"{lab}_*.ipynb"))


def run(answer: Path):
    lab = answer.parent.name[3:5]
    exercise = answer.name.split("__")[0]
    text = answer.read_text()
    nb = json.loads(notebook_for(lab).read_text())
    marker = f'NotImplementedError("{exercise}:'
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, (answer, len(cells))
    cells[0]["source"] = text.splitlines(keepends=True)
    out = Path("/tmp/reda_nbs") / f"{answer.stem}.ipynb"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(nb))
    started = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(out),
                           "--exercise", exercise], cwd=ROOT, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - started
    expect = re.search(r"# expect: (\w+)", text).group(1)
    rule = re.search(r"# rule: (.*)", text).group(1)
    verdict = "pass" if proc.returncode == 0 else "fail"
    message = (proc.stdout + proc.stderr).strip()
    return dict(answer=answer.name, exercise=exercise, expect=expect, rule=rule, verdict=verdict,
                seconds=round(took, 1), message=message)


if __name__ == "__main__":
    answers = [Path(a).resolve() for a in sys.argv[1:]]
    results_file = HERE / "results.jsonl"
    with ThreadPoolExecutor(2) as pool:
        for r in pool.map(run, answers):
            flag = ""
            if r["expect"] == "wrong" and r["verdict"] == "pass":
                flag = "FALSE PASS"
            if r["expect"] == "correct" and r["verdict"] == "fail":
                flag = "FALSE FAIL"
            print(f"{r['answer']:<60} {r['expect']:<8} {r['verdict']:<5} {r['seconds']:>6}s {flag}", flush=True)
            with results_file.open("a") as f:
                f.write(json.dumps(r) + "\n")

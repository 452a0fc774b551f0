"""Run red-team answers through `python -m course check`, one at a time; append results to results.jsonl.

    python tests/grading/redteam/red5/run.py tests/grading/redteam/red5/lab05_answers/relay_w01_*.py ...

Each answer file is the whole code cell; its first lines say `# EXERCISE: NN.name`, `# EXPECT: wrong|correct`
and `# RULE: ...`.
"""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
OUT = Path(__file__).resolve().parent / "results.jsonl"
TMP = Path("/tmp/red5/nb")
TMP.mkdir(parents=True, exist_ok=True)


def header(text, key):
    m = re.search(rf"^# {key}: (.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def run(path: Path):
    text = path.read_text()
    exercise = header(text, "EXERCISE")
    lab = exercise.split(".")[0]
    nb_path = next((ROOT / "labs").glob(f"{lab}_*.ipynb"))
    nb = json.loads(nb_path.read_text())
    marker = f'NotImplementedError("{exercise}:'
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, (path, exercise, len(cells))
    cells[0]["source"] = text.splitlines(keepends=True)
    copy = TMP / f"{lab}_{path.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    started = time.monotonic()
    done = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                           "--exercise", exercise], capture_output=True, text=True, cwd=ROOT, timeout=1800)
    took = time.monotonic() - started
    out = (done.stdout + done.stderr).strip()
    verdict = "pass" if done.returncode == 0 else "fail"
    load = open("/proc/loadavg").read().split()[0]
    row = {"answer": str(path.relative_to(ROOT)), "exercise": exercise, "expect": header(text, "EXPECT"),
           "rule": header(text, "RULE"), "verdict": verdict, "seconds": round(took, 1), "load": load,
           "output": out[-3000:]}
    with OUT.open("a") as f:
        f.write(json.dumps(row) + "\n")
    flag = "" if (verdict == "fail") == (row["expect"] == "wrong") else "  <<<<<< FALSE " + ("PASS" if verdict == "pass" else "FAIL")
    print(f"{path.stem:<40} {row['expect']:<8} {verdict:<5} {took:6.1f}s load {load}{flag}", flush=True)
    last = [l for l in out.splitlines() if l.strip()]
    print("    " + " | ".join(last[-4:])[:600], flush=True)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        run(Path(arg).resolve())

"""Blind red-team round f3 (f3b): run each answer in answers/ through `python -m course check`.

answers/<lab>_<exercise>__<w|c>NN_<slug>.py holds the exercise cell's new source; its first line is a
comment `# RULE: ...` (the rule it breaks, or "correct"). For each answer, a copy of labs/NN_*.ipynb
with that cell replaced is written to a temporary folder and checked with `--exercise NN.name`, one at
a time per worker (JOBS, default 2). Results are appended to results.tsv; full output to logs/.
Usage: .venv/bin/python tests/grading/redteam/f3-f3b/run.py [answer-file-glob ...]
Then summarize.py writes labNN.md from results.tsv, logs/ and judgements.py (false passes/fails judged by
hand); demos/ shows, on a small table, that the false passes of 11.oldest_waiting are wrong.
"""
import concurrent.futures as cf
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LABS = {"07": "07_retries_dead_letters", "09": "09_one_queue_or_two", "11": "11_watching_the_queue"}
TMP = Path(tempfile.mkdtemp(prefix="f3b-"))


def run(answer: Path) -> str:
    lab, rest = answer.stem.split("_", 1)
    exercise, tag = rest.split("__", 1)
    ex = f"{lab}.{exercise}"
    src = answer.read_text()
    rule = src.splitlines()[0].removeprefix("# RULE:").strip()
    nb = json.loads((ROOT / "labs" / f"{LABS[lab]}.ipynb").read_text())
    marker = f'raise NotImplementedError("{ex}:'
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"])]
    assert len(cells) == 1, (answer, len(cells))
    cells[0]["source"] = src.splitlines(keepends=True)
    copy = TMP / tag / f"{LABS[lab]}.ipynb"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(json.dumps(nb))
    started = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy), "--exercise", ex],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - started
    out = proc.stdout + proc.stderr
    (HERE / "logs").mkdir(exist_ok=True)
    (HERE / "logs" / f"{answer.stem}.txt").write_text(out)
    verdict = "PASS" if proc.returncode == 0 else "FAIL"
    lines = [l for l in out.splitlines() if l.strip() and not l.startswith("Checking ")]
    message = " | ".join(lines[:6]).replace("\t", " ")
    load = os.getloadavg()[0]
    row = "\t".join([answer.name, ex, rule, verdict, f"{took:.1f}", f"{load:.1f}", message])
    with open(HERE / "results.tsv", "a") as f:
        f.write(row + "\n")
    return row


if __name__ == "__main__":
    pats = sys.argv[1:] or ["*.py"]
    files = sorted({Path(p) for pat in pats for p in glob.glob(str(HERE / "answers" / pat))})
    if not (HERE / "results.tsv").exists():
        (HERE / "results.tsv").write_text("answer\texercise\trule\tverdict\tcheck_s\tload1\tmessage\n")
    with cf.ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        for row in pool.map(run, files):
            print(row[:300], flush=True)

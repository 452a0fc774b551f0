"""Run every blind answer of lab 13 through `python -m course check`, one at a time.

Each answer file is `<exercise>__<label>.py`; its first line says `# wrong: <rule>` or `# correct: ...`.
The answer replaces the exercise's cell in a copy of labs/13_replicated_broker.ipynb. Results are
appended to results_<tag>.tsv (answer, expected, verdict, seconds, message); answers already in it are
skipped, so the runner can be left polling while more answers are written (it stops on a file STOP).
"""
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "labs").is_dir())  # the checkout
LAB = ROOT / "labs" / "13_replicated_broker.ipynb"
CELLS = {"13.keep_alive": "e3e5dd2f", "13.publish_retry": "56e84e3b", "13.choose": "0b4c0218"}


def run(answer: Path) -> tuple[str, float, str]:
    exercise = answer.name.split("__")[0]
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = answer.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "13_replicated_broker.ipynb"
        copy.write_text(json.dumps(nb))
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "course", "check", "13", str(copy), "--exercise", exercise],
                              cwd=ROOT, capture_output=True, text=True, timeout=1800)
        took = time.monotonic() - began
    text = (done.stdout + done.stderr).strip()
    verdict = "pass" if done.returncode == 0 else "FAIL"
    return verdict, took, " | ".join(line.strip() for line in text.splitlines() if line.strip())[-700:]


def main(tag: str = "blind", *only: str) -> None:
    """`run.py after 13.keep_alive 13.publish_retry`: only those exercises' answers."""
    out = HERE / f"results_{tag}.tsv"
    if not out.exists():
        out.write_text("answer\texpected\tverdict\tseconds\tmessage\n")
    while True:
        seen = {line.split("\t")[0] for line in out.read_text().splitlines()[1:]}
        todo = sorted(p for p in (HERE / "answers").glob("*.py") if p.name not in seen
                      and (not only or p.name.split("__")[0] in only))
        if not todo:
            if (HERE / "STOP").exists():
                return
            time.sleep(5)
            continue
        answer = todo[0]
        expected = answer.read_text().splitlines()[0].lstrip("# ").split(":")[0]
        verdict, took, message = run(answer)
        with out.open("a") as f:
            f.write(f"{answer.name}\t{expected}\t{verdict}\t{took:.0f}\t{message.replace(chr(9), ' ')}\n")
        print(answer.name, expected, verdict, f"{took:.0f}s", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])

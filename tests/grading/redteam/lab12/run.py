"""Lab 12's red-team answers (issue 22), run as a learner runs them. Run each answer in lab12_answers/ through `python -m course check 12 --exercise`.

An answer file is named <exercise>__<label>.answer (Python: the exercise cell's text) (exercise like checkout, safe_checkout, invoice_worker);
its first line is a comment: `# expect: pass|fail  rule: ...`. The file's text replaces the exercise's
answer cell in a copy of labs/12_capstone_stayhub.ipynb. Results go to results.tsv."""
import json, subprocess, sys, time, pathlib, re, os

ROOT = pathlib.Path(__file__).resolve().parents[4]
HERE = pathlib.Path(__file__).resolve().parent
CELLS = {"checkout": "ac4d5e5b", "safe_checkout": "b374957a", "invoice_worker": "4f0ba0bb"}
LAB = ROOT / "labs" / "12_capstone_stayhub.ipynb"


def run(answer: pathlib.Path, out_dir: pathlib.Path) -> tuple[str, float, str]:
    exercise = answer.name.split("__")[0]
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = answer.read_text()
    path = out_dir / answer.with_suffix(".ipynb").name.replace("__", "_")
    path = out_dir / f"12_{answer.stem}.ipynb"
    path.write_text(json.dumps(nb))
    started = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "12", str(path),
                           "--exercise", f"12.{exercise}"], cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    verdict = "PASS" if proc.returncode == 0 else "FAIL"
    message = (proc.stdout + proc.stderr).strip()
    return verdict, seconds, message


if __name__ == "__main__":
    out_dir = pathlib.Path(os.environ.get("RED_OUT", "/tmp/red12_nbs")); out_dir.mkdir(exist_ok=True)
    names = sys.argv[1:] or sorted(p.name for p in (HERE / "lab12_answers").glob("*.answer"))
    results = HERE / os.environ.get("RED_RESULTS", "results.tsv")
    for name in names:
        answer = HERE / "lab12_answers" / name
        head = answer.read_text().splitlines()[0]
        verdict, seconds, message = run(answer, out_dir)
        (out_dir / (answer.stem + ".log")).write_text(message)  # the whole report, beside the copies
        load = os.getloadavg()[0]
        with results.open("a") as f:
            f.write(f"{answer.stem}\t{verdict}\t{seconds:.1f}\t{load:.1f}\t{head}\t{' | '.join(message.splitlines()[-3:])[:400]}\n")
        print(answer.stem, verdict, f"{seconds:.1f}s load {load:.1f}", flush=True)

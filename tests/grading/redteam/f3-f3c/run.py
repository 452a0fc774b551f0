"""Run each answer in answers/*.py through `python -m course check 12 <copy> --exercise <ex>`, one at a time.

Each answer file starts with:  # exercise: 12.x / # cell: <cell id> / # rule: correct | <rule it breaks>
The copy of labs/12_capstone_stayhub.ipynb gets that cell's source replaced by the file's code.
Results are appended to results.tsv (skips answers already there). Usage: run.py [name ...]
"""
import json, subprocess, sys, time, pathlib, re, os

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
NB = ROOT / "labs" / "12_capstone_stayhub.ipynb"
OUT = HERE / "results.tsv"
WORK = HERE / "nb"
WORK.mkdir(exist_ok=True)


def header(text, key):
    m = re.search(rf"^# {key}: (.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def done():
    if not OUT.exists():
        return set()
    return {line.split("\t")[0] for line in OUT.read_text().splitlines()[1:]}


def run(path):
    text = path.read_text()
    ex, cell, rule = header(text, "exercise"), header(text, "cell"), header(text, "rule")
    nb = json.loads(NB.read_text())
    hits = [c for c in nb["cells"] if c.get("id") == cell]
    assert len(hits) == 1, (path, cell)
    hits[0]["source"] = text.splitlines(keepends=True)
    copy = WORK / f"{path.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    load = os.getloadavg()[0]
    started = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "12", str(copy),
                           "--exercise", ex], cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    output = (proc.stdout + proc.stderr).strip()
    (WORK / f"{path.stem}.out").write_text(output)
    verdict = "pass" if proc.returncode == 0 else "FAIL"
    message = " | ".join(l.strip() for l in output.splitlines() if l.strip())[:1500].replace("\t", " ")
    if not OUT.exists():
        OUT.write_text("answer\texercise\trule\tverdict\tseconds\tload1\tmessage\n")
    with OUT.open("a") as f:
        f.write(f"{path.stem}\t{ex}\t{rule}\t{verdict}\t{seconds:.0f}\t{load:.1f}\t{message}\n")
    print(path.stem, verdict, f"{seconds:.0f}s", flush=True)


def claim(path):
    """Two runners share the answers: the copy of the notebook, created exclusively, is the claim."""
    try:
        os.close(os.open(WORK / f"{path.stem}.ipynb", os.O_CREAT | os.O_EXCL))
        return True
    except FileExistsError:
        return False


if __name__ == "__main__":
    reverse = "--reverse" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    while True:
        todo = [p for p in sorted((HERE / "answers").glob("*.py"), reverse=reverse)
                if p.stem not in done() and (not names or p.stem in names)
                and not (WORK / f"{p.stem}.ipynb").exists()]
        if not todo:
            break
        # answers are named so that the exercises take turns: each gets answers early
        if claim(todo[0]):
            run(todo[0])

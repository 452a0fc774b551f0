"""Blind red team f5-f5b05, lab 05: run each answer in answers/*.py through `python -m course check`.

Each answer file replaces the exercise's answer cell in a copy of labs/05_dual_write_outbox.ipynb.
The file name says the exercise (relay_* -> 05.relay, cancel_* -> 05.cancel_order); its first comment
line says the rule it breaks (or "correct"). Results are appended to results.tsv; answers already
there are skipped. Run: .venv/bin/python tests/grading/redteam/f5-f5b05/run.py [names...]
"""
import json, os, pathlib, subprocess, sys, time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "05_dual_write_outbox.ipynb"
CELLS = {"relay": ("d57630a9", "05.relay"), "cancel": ("180efc81", "05.cancel_order")}
OUT = HERE / os.environ.get("F5_OUT", "results.tsv")  # F5_OUT=results_after.tsv: the after-fix run
LOGS = HERE / ("logs" if OUT.name == "results.tsv" else "logs_after")
WORK = pathlib.Path("/tmp/f5b05_nbs"); WORK.mkdir(exist_ok=True)


def done():
    if not OUT.exists():
        return set()
    return {line.split("\t")[0] for line in OUT.read_text().splitlines()[1:]}


SEED = None  # --seed N: run the named answers again with another seed, recorded as name@seedN


def run(path):
    kind = path.stem.split("_")[0]
    cell_id, exercise = CELLS[kind]
    nb = json.loads(LAB.read_text())
    src = path.read_text()
    rule = src.splitlines()[0].lstrip("# ").strip()
    for cell in nb["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = src.splitlines(keepends=True)
            break
    else:
        raise SystemExit(f"no cell {cell_id}")
    copy = WORK / f"{path.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    seed = ["--seed", str(SEED)] if SEED is not None else []
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "05", str(copy),
                           "--exercise", exercise, *seed], cwd=ROOT, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - t0
    text = (proc.stdout + proc.stderr).strip()
    verdict = "pass" if proc.returncode == 0 else "fail"
    LOGS.mkdir(exist_ok=True)
    name = path.stem if SEED is None else f"{path.stem}@seed{SEED}"
    (LOGS / f"{name}.txt").write_text(text + "\n")
    msg = " | ".join(l.strip() for l in text.splitlines() if l.strip())[:1500].replace("\t", " ")
    if not OUT.exists():
        OUT.write_text("answer\texercise\trule\tverdict\tseconds\tload\tmessage\n")
    with OUT.open("a") as f:
        f.write(f"{name}\t{exercise}\t{rule}\t{verdict}\t{took:.1f}\t{load:.1f}\t{msg}\n")
    print(f"{name}: {verdict} in {took:.1f}s (load {load:.1f})", flush=True)


if __name__ == "__main__":
    names = sys.argv[1:]
    if names[:1] == ["--seed"]:
        SEED, names = int(names[1]), names[2:]
    suffix = "" if SEED is None else f"@seed{SEED}"
    while True:
        todo = [p for p in sorted((HERE / "answers").glob("*.py")) if p.stem + suffix not in done()
                and (not names or p.stem in names)]
        if not todo:
            break
        run(todo[0])

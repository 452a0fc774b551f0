"""Blind red-team runner (round f2, worktree f2b): one notebook copy per answer, the answer cell replaced,
then `python -m course check NN copy --exercise NN.name`, one at a time. Appends to results.tsv."""
import json, pathlib, re, subprocess, sys, time, os

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
while not (ROOT / "labs").is_dir():
    ROOT = ROOT.parent
CELLS = {"claim": ("03", "03_postgres_queue", "95a9e8aa"), "claim_batch": ("03", "03_postgres_queue", "30f0675d"),
         "fenced_ack": ("04", "04_leases", "da9de446"), "heartbeat": ("04", "04_leases", "950715d2")}


def exercise_of(path):
    name = path.stem
    for ex in sorted(CELLS, key=len, reverse=True):
        if name.startswith(ex + "_"):
            return ex
    raise SystemExit(f"no exercise for {name}")


def run(path, out, tmp):
    ex = exercise_of(path)
    lab, nb, cell_id = CELLS[ex]
    d = json.loads((ROOT / "labs" / f"{nb}.ipynb").read_text())
    src = path.read_text()
    for c in d["cells"]:
        if c.get("id") == cell_id:
            c["source"] = src.splitlines(keepends=True)
            break
    else:
        raise SystemExit(cell_id)
    copy = tmp / f"{nb}__{path.stem}.ipynb"
    copy.write_text(json.dumps(d))
    first = src.splitlines()[0]
    verdict_expected = "correct" if first.startswith("# correct") else "wrong"
    t0 = time.perf_counter()
    p = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(copy),
                        "--exercise", f"{lab}.{ex}"], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    dt = time.perf_counter() - t0
    text = (p.stdout + p.stderr).strip()
    verdict = "PASS" if p.returncode == 0 else "FAIL"
    msg = " / ".join(l.strip() for l in text.splitlines() if l.strip())[:600].replace("\t", " ")
    load = os.getloadavg()[0]
    line = f"{path.parent.name}/{path.name}\t{ex}\t{verdict_expected}\t{verdict}\t{dt:.1f}\t{load:.1f}\t{msg}\n"
    with open(out, "a") as f:
        f.write(line)
    print(line, end="", flush=True)


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1])
    tmp = pathlib.Path("/tmp/f2b_redteam"); tmp.mkdir(exist_ok=True)
    for arg in sys.argv[2:]:
        run(pathlib.Path(arg).resolve(), out, tmp)

"""Red team f2-f2b's runner: one notebook copy per answer (the answer cell replaced), then
`python -m course check NN copy --exercise NN.name`, one at a time; each verdict is appended to the file
named first (results_blind.tsv, results_after.tsv). `python run.py OUT.tsv answers/*.py`; then tables.py."""
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




def run_in_process(path, out):
    """The same verdict through run_check, in this process (as the tests run checks): no notebook to load."""
    from course.grading import run_check
    ex = exercise_of(path)
    lab = CELLS[ex][0]
    argument = {"claim": "claim", "claim_batch": "claim_batch", "fenced_ack": "ack", "heartbeat": "extend_lease"}[ex]
    scope = {"__name__": "__main__"}
    exec(compile(path.read_text(), path.name, "exec"), scope)
    expected = "correct" if path.read_text().startswith("# correct") else "wrong"
    t0 = time.perf_counter()
    report = run_check(f"{lab}.{ex}", **{argument: scope[argument]})
    dt = time.perf_counter() - t0
    msg = " / ".join(l.strip() for l in report.render().splitlines() if l.strip())[:600].replace("\t", " ")
    line = (f"{path.parent.name}/{path.name}\t{ex}\t{expected}\t{'PASS' if report.passed else 'FAIL'}\t{dt:.1f}\t"
            f"{os.getloadavg()[0]:.1f}\t{msg}\n")
    with open(out, "a") as f:
        f.write(line)
    print(line, end="", flush=True)


if __name__ == "__main__":  # python run.py [--in-process] OUT.tsv answers/*.py
    args = sys.argv[1:]
    in_process = args[0] == "--in-process"
    out, paths = pathlib.Path(args[in_process]), [pathlib.Path(a).resolve() for a in args[in_process + 1:]]
    tmp = pathlib.Path("/tmp/f2b_redteam"); tmp.mkdir(exist_ok=True)
    for path in paths:
        run_in_process(path, out) if in_process else run(path, out, tmp)

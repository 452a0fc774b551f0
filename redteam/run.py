"""Red-team harness: each answer file replaces its exercise's cell in a copy of labs/NN_*.ipynb, then
`python -m course check NN copy --exercise NN.name` runs; verdict and message go to results.json."""
import os, json, subprocess, sys, time, pathlib, concurrent.futures as cf

ROOT = pathlib.Path(__file__).resolve().parent.parent
HERE = ROOT / "redteam"
CELLS = {"10.in_progress": ("10_littles_law", "f2949261"), "10.pool": ("10_littles_law", "ecd52897"),
         "11.oldest_waiting": ("11_watching_the_queue", "73a8d0b4"),
         "11.vacuum_blockers": ("11_watching_the_queue", "fce50713")}


def header(text, key):
    for line in text.splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    return ""


def run(path):
    lab = path.parent.parent.name[3:5]
    exercise = f"{lab}.{path.parent.name}"
    stem, cell_id = CELLS[exercise]
    nb = json.loads((ROOT / "labs" / f"{stem}.ipynb").read_text())
    code = path.read_text()
    for cell in nb["cells"]:
        if cell.get("id") == cell_id:
            cell["source"] = code
    out = pathlib.Path("/tmp/cl/nbs") / f"{exercise}-{path.stem}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(nb))
    t0 = time.monotonic()
    p = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(out), "--exercise", exercise],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    return {"exercise": exercise, "answer": path.stem, "expect": header(code, "expect"), "rule": header(code, "rule"),
            "passed": p.returncode == 0, "seconds": round(time.monotonic() - t0, 1),
            "output": (p.stdout + p.stderr).strip()[-1500:]}


if __name__ == "__main__":
    paths = [pathlib.Path(a).resolve() for a in sys.argv[1:]] or sorted(HERE.glob("lab1?_answers/*/*.py"))
    results_file = HERE / f"results{os.environ.get('RT_TAG', '')}.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    with cf.ThreadPoolExecutor(2) as pool:
        for r in pool.map(run, paths):
            results[f"{r['exercise']}/{r['answer']}"] = r
            ok = (r["passed"] and r["expect"] == "correct") or (not r["passed"] and r["expect"] == "wrong")
            print(f"{'ok ' if ok else 'BAD'} {r['exercise']:<20} {r['answer']:<28} {r['expect']:<7} "
                  f"{'PASS' if r['passed'] else 'fail'} {r['seconds']}s :: {r['output'].splitlines()[-1] if r['output'] else ''}", flush=True)
            results_file.write_text(json.dumps(results, indent=1, sort_keys=True))

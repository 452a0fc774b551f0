"""Red team harness (issue 22, phase 1 blind): each answer file replaces its exercise's cell in a copy of
labs/13_replicated_broker.ipynb, then `python -m course check 13 copy --exercise 13.x` judges it.

Answer files: lab13_answers/<exercise>__<w|c>_<name>.answer (plain text: a notebook cell, not a module), first line '# rule: ...'."""
import json, subprocess, sys, time, pathlib, re, concurrent.futures as cf
ROOT = pathlib.Path(__file__).resolve().parents[4]
LAB = ROOT / "labs/13_replicated_broker.ipynb"
CELLS = {"keep_alive": "e3e5dd2f", "publish_retry": "56e84e3b", "choose": "0b4c0218"}
OUT = pathlib.Path("/tmp/redteam13"); OUT.mkdir(exist_ok=True)

def run(path):
    ex, name = path.stem.split("__")
    nb = json.loads(LAB.read_text())
    src = path.read_text()
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[ex]:
            cell["source"] = src
    copy = OUT / f"{path.stem}.ipynb"
    copy.write_text(json.dumps(nb))
    began = time.monotonic()
    p = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "13", str(copy), "--exercise", f"13.{ex}"],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    took = time.monotonic() - began
    rule = src.splitlines()[0].removeprefix("# rule:").strip()
    verdict = "pass" if p.returncode == 0 else "FAIL"
    (OUT / f"{path.stem}.out").write_text(p.stdout + p.stderr)
    msg = " ".join((p.stdout + p.stderr).split())[-400:]
    return dict(ex=ex, name=name, rule=rule, verdict=verdict, took=round(took, 1), msg=msg)

if __name__ == "__main__":
    files = sorted((pathlib.Path(__file__).parent / "lab13_answers").glob(sys.argv[1] if len(sys.argv) > 1 else "*.answer"))
    with cf.ThreadPoolExecutor(int(sys.argv[2]) if len(sys.argv) > 2 else 1) as pool:
        for r in pool.map(run, files):
            print(json.dumps(r), flush=True)

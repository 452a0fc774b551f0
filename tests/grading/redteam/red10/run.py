"""Run blind answers through `python -m course check`: one labs-notebook copy per answer, answer cell replaced."""
import json, subprocess, sys, time, os
from pathlib import Path
ROOT = Path(__file__).resolve().parents[4]
CELLS = {  # exercise -> (lab, notebook, cell id, answer-file prefix)
    "10.in_progress": ("10", "10_littles_law.ipynb", "f2949261", "in_progress_"),
    "10.pool": ("10", "10_littles_law.ipynb", "ecd52897", "pool_"),
    "11.oldest_waiting": ("11", "11_watching_the_queue.ipynb", "73a8d0b4", "oldest_"),
    "11.alerts": ("11", "11_watching_the_queue.ipynb", "5c35e460", "alerts_"),
    "11.vacuum_blockers": ("11", "11_watching_the_queue.ipynb", "fce50713", "vacuum_"),
    "13.keep_alive": ("13", "13_replicated_broker.ipynb", "e3e5dd2f", "keep_"),
    "13.publish_retry": ("13", "13_replicated_broker.ipynb", "56e84e3b", "publish_"),
    "13.choose": ("13", "13_replicated_broker.ipynb", "0b4c0218", "choose_"),
}
def exercise_of(path):
    lab = path.parent.name[3:5]
    for ex, (l, _, _, prefix) in CELLS.items():
        if l == lab and path.name.startswith(prefix):
            return ex
def run(path, out):
    ex = exercise_of(path)
    lab, nbname, cid, _ = CELLS[ex]
    nb = json.loads((ROOT / "labs" / nbname).read_text())
    code = path.read_text()
    for cell in nb["cells"]:
        if cell.get("id") == cid:
            cell["source"] = code.splitlines(keepends=True)
    tmp = Path("/tmp/red10_nb") / f"{path.stem}" / nbname
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(json.dumps(nb))
    t0 = time.monotonic()
    p = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", lab, str(tmp), "--exercise", ex],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    took = time.monotonic() - t0
    expected = code.splitlines()[0].lstrip("# ")
    rec = {"answer": f"{path.parent.name}/{path.name}", "exercise": ex, "expected": expected, "rc": p.returncode,
           "verdict": "pass" if p.returncode == 0 else "fail", "seconds": round(took, 1),
           "load": os.getloadavg()[0], "output": (p.stdout + p.stderr)[-3000:]}
    with open(out, "a") as f:
        f.write(json.dumps(rec) + "\n")
    print(f"{rec['verdict']:4} {took:6.1f}s  {path.name}  [{expected[:50]}]", flush=True)
if __name__ == "__main__":
    out = sys.argv[1]
    for p in sys.argv[2:]:
        run(Path(p).resolve(), out)

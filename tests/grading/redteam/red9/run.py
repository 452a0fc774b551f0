"""Run red-team answers: each answers/<lab>/<exercise>__<name>.py replaces the exercise's cell in a copy
of labs/<lab>_*.ipynb; `course check` judges it. Writes results/<name>.txt and prints one line each."""
import glob, json, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../.."))  # tests/grading/redteam/red9
HERE = os.path.dirname(os.path.abspath(__file__))
CELL_START = {"09.route": "def enqueue_job(", "09.newsletter": "def enqueue_newsletter(",
              "05.place_order": "def place_order(", "05.relay": "def relay_batch(",
              "06.confirm_booking": "def confirm_booking(", "06.send_confirmation": "def send_confirmation("}


def run(path):
    name = os.path.basename(path)[:-3]
    exercise = name.split("__")[0]
    lab = exercise[:2]
    nb_path = glob.glob(f"{ROOT}/labs/{lab}_*.ipynb")[0]
    nb = json.load(open(nb_path))
    answer = open(path).read()
    cells = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith(CELL_START[exercise])]
    assert len(cells) == 1, name
    cells[0]["source"] = answer
    os.makedirs("/tmp/red9_nb", exist_ok=True)
    copy = f"/tmp/red9_nb/{name}.ipynb"
    json.dump(nb, open(copy, "w"))
    started = time.monotonic()
    proc = subprocess.run([f"{ROOT}/.venv/bin/python", "-m", "course", "check", lab, copy, "--exercise", exercise],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - started
    out = proc.stdout + proc.stderr
    out_dir = os.environ.get("RESULTS", "results")
    os.makedirs(f"{HERE}/{out_dir}", exist_ok=True)
    open(f"{HERE}/{out_dir}/{name}.txt", "w").write(f"rc={proc.returncode} took={took:.1f}s load={os.getloadavg()[0]:.1f}\n{out}")
    verdict = "PASS" if proc.returncode == 0 else "FAIL"
    print(f"{verdict} {name} {took:.0f}s", flush=True)
    return name, verdict


if __name__ == "__main__":
    paths = sorted(p for arg in sys.argv[1:] for p in glob.glob(arg))
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        list(pool.map(run, paths))

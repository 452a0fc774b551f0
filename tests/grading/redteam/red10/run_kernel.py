"""Run one answer the way a learner does: in a Jupyter kernel, the setup cells, the answer, then check()."""
import json, sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
ROOT = Path(__file__).resolve().parents[4]
def run(nbname, setup_ids, answer_id, check_id, answer_path):
    nb = nbformat.read(ROOT / "labs" / nbname, as_version=4)
    keep = []
    for cell in nb.cells:
        if cell.get("id") in setup_ids or cell.get("id") in (answer_id, check_id):
            if cell.get("id") == answer_id:
                cell.source = Path(answer_path).read_text()
            keep.append(cell)
    nb.cells = keep
    t0 = time.monotonic()
    NotebookClient(nb, timeout=900, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(ROOT / "labs")}}).execute()
    out = "".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", "")) + o.get("evalue", "")
                  for o in nb.cells[-1].outputs)
    return time.monotonic() - t0, out
if __name__ == "__main__" and sys.argv[1] != "--batch":
    took, out = run("13_replicated_broker.ipynb", {"db8c8492", "f8a15135"}, "e3e5dd2f", "6ebf876f", sys.argv[1])
    print(f"{took:.1f}s\n{out}")


def batch(out, paths):
    """keep_alive answers in a kernel, one at a time, appended to `out` as JSON lines."""
    import os
    for p in paths:
        took, text = run("13_replicated_broker.ipynb", {"db8c8492", "f8a15135"}, "e3e5dd2f", "6ebf876f", p)
        expected = Path(p).read_text().splitlines()[0].lstrip("# ")
        verdict = "pass" if "checks passed" in text and "failed" not in text else "fail"
        with open(out, "a") as f:
            f.write(json.dumps({"answer": f"{Path(p).parent.name}/{Path(p).name}", "exercise": "13.keep_alive",
                                "mode": "kernel", "expected": expected, "verdict": verdict, "seconds": round(took, 1),
                                "load": os.getloadavg()[0], "output": text[-3000:]}) + "\n")
        print(f"{verdict:4} {took:6.1f}s  {Path(p).name}  [{expected[:50]}]", flush=True)
if __name__ == "__main__" and sys.argv[1] == "--batch":
    batch(sys.argv[2], sys.argv[3:])

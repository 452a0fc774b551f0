"""Blind red-team runner: one labs notebook copy per answer (its answer cell replaced), checked one at a time."""
import json, subprocess, sys, time, pathlib, re

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[3]
LAB = ROOT / "labs" / "13_replicated_broker.ipynb"
CELLS = {"keep_alive": "e3e5dd2f", "publish_retry": "56e84e3b", "choose": "0b4c0218"}
OUT = HERE / (__import__("os").environ.get("RESULTS", "results.tsv"))


def run(path: pathlib.Path) -> tuple[str, str, float]:
    exercise = next(e for e in CELLS if path.name.startswith(e + "__"))
    nb = json.loads(LAB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == CELLS[exercise]:
            cell["source"] = path.read_text()
    work = pathlib.Path("/tmp/f4r13_nb") / path.stem
    work.mkdir(parents=True, exist_ok=True)
    target = work / LAB.name
    target.write_text(json.dumps(nb))
    began = time.monotonic()
    proc = subprocess.run([str(ROOT / ".venv/bin/python"), "-m", "course", "check", "13", str(target),
                           "--exercise", f"13.{exercise}"], cwd=ROOT, capture_output=True, text=True)
    took = time.monotonic() - began
    text = (proc.stdout + proc.stderr).strip()
    (work / "output.txt").write_text(text)
    verdict = "PASS" if proc.returncode == 0 else "FAIL"
    message = " | ".join(l.strip() for l in text.splitlines() if l.strip())[-600:]
    return verdict, message, took


if __name__ == "__main__":
    paths = [pathlib.Path(p) for p in sys.argv[1:]] or sorted((HERE / "answers").glob("*.py"))
    for path in paths:
        verdict, message, took = run(path)
        line = f"{path.stem}\t{verdict}\t{took:.1f}\t{message}"
        print(line, flush=True)
        with OUT.open("a") as f:
            f.write(line.replace("\n", " ") + "\n")

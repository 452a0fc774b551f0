"""redteam/labNN.md from the results: one row per answer (CLI verdict, and the kernel's where it was run)."""
import json, sys, re
from pathlib import Path
rows = {}
for f in sorted(Path(".").glob("results_lab*.jsonl")):
    for line in f.read_text().splitlines():
        r = json.loads(line)
        key = r["answer"]
        mode = r.get("mode", "cli")
        rows.setdefault(key, {})[mode] = r
def message(r):
    out = r["output"]
    fails = [l.strip() for l in out.splitlines() if l.strip().startswith("✗")]
    return (fails[0][2:] if fails else ("passed" if r["verdict"] == "pass" else out.strip().splitlines()[-1]))[:110]
for lab in ("10", "11", "13"):
    lines = [f"# Red team round red10 (blind), lab {lab}", "",
             "Each answer run with `python -m course check NN copy.ipynb --exercise NN.name` (cli); 13.keep_alive also in a",
             "Jupyter kernel, as a learner runs `check()` (kernel), because the terminal check fails every answer (see below).", "",
             "| exercise | answer | rule it breaks (or correct) | verdict | false? | the check's message (first failing line) | s | load |",
             "|---|---|---|---|---|---|---|---|"]
    fp = {}
    for key in sorted(rows):
        if not key.startswith(f"lab{lab}_"):
            continue
        for mode, r in sorted(rows[key].items()):
            wrong = r["expected"].startswith("wrong")
            false = ("FALSE PASS" if wrong and r["verdict"] == "pass" else
                     "FALSE FAIL" if not wrong and r["verdict"] == "fail" else "")
            lines.append(f"| {r['exercise']} ({mode}) | {Path(key).stem} | {r['expected'].replace('|', '/')} | {r['verdict']} | {false} | "
                         f"{message(r).replace('|', '/')} | {r['seconds']} | {r['load']:.0f} |")
    Path(f"lab{lab}.md").write_text("\n".join(lines) + "\n")

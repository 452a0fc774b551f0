"""Write redteam/labNN.md from results.jsonl (the last run of each answer)."""
import json
from collections import defaultdict
from pathlib import Path
here = Path(__file__).parent
rows = {}
for line in (here / "results.jsonl").read_text().splitlines():
    r = json.loads(line)
    rows[r["answer"]] = r
by_lab = defaultdict(list)
for r in rows.values():
    by_lab[r["exercise"][:2]].append(r)
for lab, items in sorted(by_lab.items()):
    items.sort(key=lambda r: (r["exercise"], r["expect"] != "wrong", r["answer"]))
    out = [f"# Lab {lab}: blind red-team round (red5, session 5)", "",
           "Written before any check, test or solution was opened: only the learner notebook, README and the",
           "public modules it imports. Each answer ran alone through `python -m course check`",
           "(`redteam/run.py`). Verdict: pass/fail of the check; FALSE PASS = a wrong answer that passed,",
           "FALSE FAIL = a correct answer that failed.", ""]
    for ex in sorted({r["exercise"] for r in items}):
        mine = [r for r in items if r["exercise"] == ex]
        wrong = [r for r in mine if r["expect"] == "wrong"]
        right = [r for r in mine if r["expect"] == "correct"]
        fp = [r for r in wrong if r["verdict"] == "pass"]
        ff = [r for r in right if r["verdict"] == "fail"]
        out += [f"## {ex}: {len(wrong)} wrong ({len(fp)} passed), {len(right)} correct ({len(ff)} failed)", "",
                "| answer | rule it breaks | verdict | the check's message (last lines) | s (load) |", "|---|---|---|---|---|"]
        for r in mine:
            msg = [l.strip() for l in r["output"].splitlines() if l.strip() and not l.strip().startswith("✓")]
            fails = [l for l in msg if l.startswith("✗") or "✗" in l]
            text = (" / ".join(fails[:2]) or " / ".join(msg[-2:]))[:300].replace("|", "\\|")
            flag = ""
            if r["expect"] == "wrong" and r["verdict"] == "pass":
                flag = " **FALSE PASS**"
            if r["expect"] == "correct" and r["verdict"] == "fail":
                flag = " **FALSE FAIL**"
            out.append(f"| `{Path(r['answer']).stem}` | {r['rule']} | {r['verdict']}{flag} | {text} | {r['seconds']} ({r['load']}) |")
        out.append("")
    wrong = [r for r in items if r["expect"] == "wrong"]
    fp = [r for r in wrong if r["verdict"] == "pass"]
    right = [r for r in items if r["expect"] == "correct"]
    ff = [r for r in right if r["verdict"] == "fail"]
    out += [f"**Lab {lab}: {len(fp)} of {len(wrong)} wrong answers passed ({100 * len(fp) / max(1, len(wrong)):.1f} %); "
            f"{len(ff)} of {len(right)} correct answers failed.**", ""]
    (here / f"lab{lab}.md").write_text("\n".join(out))
    print(lab, len(wrong), len(fp), len(right), len(ff))

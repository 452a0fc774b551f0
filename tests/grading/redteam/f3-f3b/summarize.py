"""Build labNN.md tables from results.tsv and logs/ (the failing row of each check in full)."""
import csv
import re
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTES = {}
JUDGE = {}  # answer -> judgement for false passes / false fails, filled in by hand below
exec((HERE / "judgements.py").read_text()) if (HERE / "judgements.py").exists() else None


def failing_row(log: str) -> str:
    lines, keep = log.splitlines(), []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("✗"):
            keep.append(line.strip())
            for nxt in lines[i + 1:]:
                if nxt.startswith("      ") and not nxt.lstrip().startswith(("✓", "✗")):
                    keep.append(nxt.strip())
                else:
                    break
    if not keep:
        keep = [l.strip() for l in lines if "raised" in l or "not started" in l or "Error" in l][:3]
    return " / ".join(keep)


rows = list(csv.DictReader(open(HERE / "results.tsv"), delimiter="\t"))
latest = {}
for r in rows:
    latest[r["answer"]] = r
by_lab = defaultdict(lambda: defaultdict(list))
for name, r in sorted(latest.items()):
    by_lab[name[:2]][r["exercise"]].append(r)
for lab, exercises in by_lab.items():
    out = [f"# Lab {lab}: blind red team, round f3 (f3b)\n",
           f"Verdicts from `python -m course check {lab} <copy> --exercise NN.name`; times are the whole command "
           "(start-up included) with the 1-minute load average when it ended (2 cores, shared).\n"]
    summary = []
    for ex, rs in sorted(exercises.items()):
        arguable = [r for r in rs if JUDGE.get(r["answer"], "").startswith("ARGUABLE")]
        wrong = [r for r in rs if r["rule"] != "correct" and r not in arguable]
        right = [r for r in rs if r["rule"] == "correct"]
        wp = [r for r in wrong if r["verdict"] == "PASS"]
        cf = [r for r in right if r["verdict"] == "FAIL"]
        summary.append((ex, len(wrong), len(wp), len(right), len(cf)))
        extra = f" (besides {len(arguable)} arguable, not counted)" if arguable else ""
        out.append(f"\n## {ex}: wrong {len(wrong)} tried / {len(wp)} passed; correct {len(right)} tried / {len(cf)} failed{extra}\n")
        out.append("| answer | rule it breaks | verdict | check's failing row (or judgement) | time s (load) |")
        out.append("|---|---|---|---|---|")
        for r in sorted(rs, key=lambda r: r["answer"]):
            log = (HERE / "logs" / (r["answer"][:-3] + ".txt")).read_text()
            msg = failing_row(log) if r["verdict"] == "FAIL" else "passed"
            flag = ""
            if (r["verdict"] == "PASS") != (r["rule"] == "correct"):
                judged = JUDGE.get(r["answer"], "(not judged)")
                kind = "FALSE " + ("PASS" if r["verdict"] == "PASS" else "FAIL")
                flag = f"**{'arguable, not counted' if judged.startswith('ARGUABLE') else kind}**: {judged} — "
            msg = (flag + msg).replace("|", "\\|")
            out.append(f"| `answers/{r['answer']}` | {r['rule'].replace('|', '/')} | {r['verdict']} | {msg} | {r['check_s']} ({r['load1']}) |")
    tw = sum(s[1] for s in summary); tp = sum(s[2] for s in summary)
    tc = sum(s[3] for s in summary); tf = sum(s[4] for s in summary)
    out.insert(2, "\n## Summary\n\n| exercise | wrong tried | wrong passed | correct tried | correct failed |\n|---|---|---|---|---|\n"
               + "\n".join(f"| {s[0]} | {s[1]} | {s[2]} | {s[3]} | {s[4]} |" for s in summary)
               + f"\n| **lab {lab}** | {tw} | {tp} | {tc} | {tf} |\n\nFalse-pass rate: {tp}/{tw}"
               + (f" = {100 * tp / tw:.1f} %" if tw else "") + f"; false fails: {tf}.\n")
    out.insert(3, NOTES.get(lab, ""))
    (HERE / f"lab{lab}.md").write_text("\n".join(out) + "\n")
    print(lab, summary, f"{tp}/{tw}", tf)

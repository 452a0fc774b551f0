"""Write labNN.md from results_blind.tsv (and results_after.tsv when it exists): one row per answer."""
import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
csv.field_size_limit(10**7)


def load(name):
    path = HERE / name
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split("\t")
            if len(parts) >= 7:
                rows[parts[0]] = parts  # the last run of an answer wins
    return rows


def rule(path):
    text = (HERE / path).read_text()
    match = re.search(r"^# rule: (.*)$", text, re.M)
    return match.group(1) if match else ""


def short(message, verdict):
    if verdict == "pass":
        return ""
    parts = [p for p in message.split(" | ") if "✗" in p or "fail" in p.lower() or "expected" in p.lower()]
    return (" / ".join(parts) or message)[:300].replace("|", "\\|")


blind, after = load("results_blind.tsv"), load("results_after.tsv")
by_lab = defaultdict(list)
for path, parts in blind.items():
    by_lab[parts[1][:2]].append(parts)
for lab, rows in sorted(by_lab.items()):
    out = [f"# Lab {lab}: round f2 (f2a), blind answers", "",
           "Each answer replaced its exercise's cell in a copy of `labs/`; `python -m course check` judged it. "
           "Blind: written and run before any check or test was read. After: the same answer after the fixes.", ""]
    summary = []
    for exercise in sorted({r[1] for r in rows}):
        mine = [r for r in rows if r[1] == exercise]
        wrong = [r for r in mine if r[2] == "wrong"]
        correct = [r for r in mine if r[2] == "correct"]
        fp = [r for r in wrong if r[3] == "pass"]
        ff = [r for r in correct if r[3] == "fail"]
        summary.append((exercise, len(wrong), len(fp), len(correct), len(ff)))
        out += [f"## {exercise}", "",
                "| answer | kind | rule it breaks | blind | s (load) | after | s (load) | check's message (blind) |",
                "|---|---|---|---|---|---|---|---|"]
        for r in sorted(mine, key=lambda r: r[0]):
            a = after.get(r[0])
            flag = " **FALSE PASS**" if r[2] == "wrong" and r[3] == "pass" else (
                " **FALSE FAIL**" if r[2] == "correct" and r[3] == "fail" else "")
            out.append(f"| `{Path(r[0]).name}` | {r[2]} | {rule(r[0])} | {r[3]}{flag} | {r[4]} ({r[5]}) | "
                       f"{a[3] if a else '–'} | {(a[4] + ' (' + a[5] + ')') if a else '–'} | {short(r[6], r[3])} |")
        out.append("")
    total_w = sum(s[1] for s in summary)
    total_fp = sum(s[2] for s in summary)
    head = ["## Summary (blind)", "", "| exercise | wrong tried | wrong passed | correct tried | correct failed |",
            "|---|---|---|---|---|"]
    head += [f"| {e} | {w} | {fp} | {c} | {ff} |" for e, w, fp, c, ff in summary]
    head += [f"| **lab {lab}** | {total_w} | {total_fp} ({100 * total_fp / max(total_w, 1):.1f} %) | "
             f"{sum(s[3] for s in summary)} | {sum(s[4] for s in summary)} |", ""]
    (HERE / f"lab{lab}.md").write_text("\n".join(out[:4] + head + out[4:]) + "\n")
    print(f"lab{lab}.md: {total_fp}/{total_w} false passes")

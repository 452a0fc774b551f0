"""Write labNN.md from results_blind.tsv (and results_after.tsv, when there is one)."""
import csv, sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name):
    path = HERE / name
    if not path.exists():
        return {}
    rows = {}
    for row in csv.reader(path.open(), delimiter="\t"):
        if len(row) >= 7:
            rows[(row[0], row[1])] = row  # the last run of an answer wins
    return rows


def verdict(row, correct):
    if row is None:
        return "—"
    ok = row[3] == "PASS"
    if correct:
        return "pass" if ok else "**FALSE FAIL**"
    return "**FALSE PASS**" if ok else "fail"


def message(row):
    text = row[6]
    if row[3] == "PASS":
        return next((p for p in text.split(" | ") if "checks passed" in p), "passed")
    parts = [p for p in text.split(" | ") if p.startswith(("✗", "✘", "×")) or "did not pass" in p or "Error" in p]
    return (" ".join(parts) or text.split(" | ", 1)[-1])[:300].replace("|", "/")


blind, after = load("results_blind.tsv"), load("results_after.tsv")
for lab in ("07", "08"):
    lines = [f"# Lab {lab}: blind red team, round f2 (f2d)", "",
             "Answers in `answers/` (the cell's code; first line: the rule it breaks). Time: the whole "
             "`python -m course check` run, in seconds, with the 1-minute load average beside it.", "",
             "| exercise | answer | rule broken | blind verdict | time s (load) | after fix | check's message (blind) |",
             "|---|---|---|---|---|---|---|"]
    per = defaultdict(lambda: [0, 0, 0, 0])
    for key, row in sorted(blind.items()):
        if not key[0].startswith(lab):
            continue
        correct = row[2] == "correct"
        counts = per[key[0]]
        if correct:
            counts[2] += 1
            counts[3] += row[3] != "PASS"
        else:
            counts[0] += 1
            counts[1] += row[3] == "PASS"
        lines.append(f"| {row[0]} | {row[1]} | {row[2]} | {verdict(row, correct)} | {row[4]} ({row[5]}) | "
                     f"{verdict(after.get(key), correct)} | {message(row)} |")
    lines += ["", "| exercise | wrong tried | wrong passed (blind) | correct tried | correct failed (blind) |",
              "|---|---|---|---|---|"]
    total = [0, 0, 0, 0]
    for exercise, counts in sorted(per.items()):
        lines.append(f"| {exercise} | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} |")
        total = [a + b for a, b in zip(total, counts)]
    rate = 100 * total[1] / total[0] if total[0] else 0
    lines += [f"| **lab {lab}** | {total[0]} | {total[1]} ({rate:.1f} %) | {total[2]} | {total[3]} |", ""]
    (HERE / f"lab{lab}.md").write_text("\n".join(lines))
    print("\n".join(lines[-(len(per) + 3):]))

"""Write lab12.md's tables from results_blind.tsv (and results_after.tsv when it exists)."""
import csv
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name):
    path = HERE / name
    if not path.exists():
        return {}
    with path.open() as fh:
        return {row["answer"]: row for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)}


from run import summary


def message(name, results, row):
    log = HERE / "logs" / f"{name}.{results}.log"
    return summary(log.read_text()) if log.exists() else row["message"]


blind, after = load("results_blind.tsv"), load("results_after.tsv")
lines = []
per = defaultdict(lambda: [0, 0, 0, 0])  # wrong, wrong passed, correct, correct failed
for name, row in sorted(blind.items(), key=lambda kv: (kv[1]["exercise"], kv[0])):
    wrong = row["expect"] == "wrong"
    c = per[row["exercise"]]
    if wrong:
        c[0] += 1
        c[1] += row["verdict"] == "PASS"
    else:
        c[2] += 1
        c[3] += row["verdict"] == "FAIL"
    judged = ("FALSE PASS" if wrong and row["verdict"] == "PASS" else
              "FALSE FAIL" if not wrong and row["verdict"] == "FAIL" else "ok")
    a = after.get(name)
    lines.append(f"| {row['exercise']} | `answers/{name}.py` | {row['rule']} | {row['verdict']} ({judged}) | "
                 f"{row['seconds']} s | {message(name, 'results_blind', row).replace('|', '/')[:260]} | "
                 f"{(a['verdict'] + ' ' + a['seconds'] + ' s') if a else ''} |")
out = ["| exercise | wrong tried | wrong passed (false pass) | correct tried | correct failed (false fail) |",
       "|---|---|---|---|---|"]
tw = tp = 0
for ex, (w, wp, c, cf) in sorted(per.items()):
    out.append(f"| {ex} | {w} | {wp} | {c} | {cf} |")
    tw += w
    tp += wp
out.append(f"| **lab 12** | {tw} | {tp} ({100 * tp / max(tw, 1):.1f} %) | "
           f"{sum(v[2] for v in per.values())} | {sum(v[3] for v in per.values())} |")
out += ["", "| exercise | answer | rule it breaks (or correct) | blind verdict | time | the check's message | after the fix |",
        "|---|---|---|---|---|---|---|"] + lines
print("\n".join(out))

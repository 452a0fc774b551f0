"""Tables for lab12.md from results.tsv and nb/*.out: per exercise, then the lab's summary.
Judgements of false passes / false fails come from judgements.tsv (answer<TAB>text)."""
import csv, pathlib, re, sys

HERE = pathlib.Path(__file__).resolve().parent
rows, seen = [], set()
for r in csv.DictReader((HERE / "results.tsv").open(), delimiter="\t"):
    if r["answer"] not in seen:  # two runners met on one answer: the first run counts
        seen.add(r["answer"])
        rows.append(r)
for r in rows:  # re-read the rule: an answer's header may have been corrected after its run
    a = HERE / "answers" / f"{r['answer']}.py"
    if a.exists():
        for line in a.read_text().splitlines():
            if line.startswith("# rule: "):
                r["rule"] = line[len("# rule: "):]
judge = {}
if (HERE / "judgements.tsv").exists():
    for line in (HERE / "judgements.tsv").read_text().splitlines():
        if "\t" in line:
            k, v = line.split("\t", 1)
            judge[k] = v


def failing_row(stem):
    out = (HERE / "nb" / f"{stem}.out")
    if not out.exists():
        return ""
    lines = out.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("✗"):
            block = [line.strip()] + [l.strip() for l in lines[i + 1:i + 6] if l.startswith("      ")]
            return " / ".join(block)
    for line in lines:
        if "checks passed" in line or "Error" in line or "error" in line:
            return line.strip()
    return lines[-1].strip() if lines else ""


import statistics
out = []
summary = []
total = {"wt": 0, "wp": 0, "ct": 0, "cf": 0, "ar": 0}
exercises = sorted({r["exercise"] for r in rows})
for ex in exercises:
    rs = [r for r in rows if r["exercise"] == ex]
    out.append(f"\n### {ex}\n")
    out.append("| answer | rule it breaks | verdict | false? | the check's message (failing row) | s | load |")
    out.append("|---|---|---|---|---|---|---|")
    wt = wp = ct = cf = ar = 0
    for r in rs:
        correct = r["rule"].startswith("correct")
        flag = ""
        if r["rule"].startswith("arguable"):
            flag = "arguable (out of the rate)"
            ar += 1
        elif correct:
            ct += 1
            if r["verdict"] != "pass":
                cf += 1
                flag = "**FALSE FAIL**"
        else:
            wt += 1
            if r["verdict"] == "pass":
                wp += 1
                flag = "**FALSE PASS**"
        if r["answer"] in judge:
            flag += " " + judge[r["answer"]]
        msg = failing_row(r["answer"]).replace("|", "\\|")
        out.append(f"| answers/{r['answer']}.py | {r['rule'].replace('|', '/')} | {r['verdict']} | {flag} | {msg} | "
                   f"{r['seconds']} | {r['load1']} |")
    out.append(f"\n{ex}: wrong tried {wt}, passed {wp}; correct tried {ct}, failed {cf}; arguable {ar}\n")
    for k, v in zip(("wt", "wp", "ct", "cf", "ar"), (wt, wp, ct, cf, ar)):
        total[k] += v
    secs = [float(r["seconds"]) for r in rs]
    loads = [float(r["load1"]) for r in rs]
    summary.append(f"| {ex} | {wt} | {wp} ({100 * wp / max(1, wt):.0f} %) | {ar} | {ct} | {cf} | "
                   f"{statistics.median(secs):.0f} / {max(secs):.0f} s, load {min(loads):.0f}-{max(loads):.0f} |")
out.append(f"\n**Lab 12: wrong tried {total['wt']}, passed {total['wp']} "
           f"({100 * total['wp'] / max(1, total['wt']):.1f} %); correct tried {total['ct']}, failed {total['cf']}**\n")
summary.append(f"| **lab 12** | **{total['wt']}** | **{total['wp']} ({100 * total['wp'] / max(1, total['wt']):.1f} %)** | "
               f"{total['ar']} | **{total['ct']}** | **{total['cf']}** | |")
print("\n".join(summary))
print("\n## Per exercise\n")
print("\n".join(out))

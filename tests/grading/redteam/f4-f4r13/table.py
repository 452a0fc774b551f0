"""Writes a lab13 table from a results file (the last run of each answer wins); messages from each run's full output."""
import pathlib, sys
HERE = pathlib.Path(__file__).parent
src = HERE / (sys.argv[1] if len(sys.argv) > 1 else "results.tsv")
outputs = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/f4r13_nb")
ARGUABLE = {"choose__W12_truthy_teams"}
rows = {}
for line in src.read_text().splitlines():
    name, verdict, took, message = (line.split("\t") + [""] * 4)[:4]
    rows[name] = (verdict, took, message)
out = ["| answer | rule it breaks (or correct) | verdict | false? | check's message | time s |", "|---|---|---|---|---|---|"]
counts = {}
for name in sorted(rows):
    verdict, took, message = rows[name]
    exercise = name.split("__")[0]
    first = (HERE / "answers" / f"{name}.py").read_text().splitlines()[0].lstrip("# ")
    wrong = first.startswith("wrong")
    false = (wrong and verdict == "PASS") or (not wrong and verdict == "FAIL")
    c = counts.setdefault(exercise, [0, 0, 0, 0])
    c[0 if wrong else 2] += 1
    c[1 if wrong else 3] += false
    full = outputs / name / "output.txt"
    if full.exists():
        lines = [l.strip() for l in full.read_text().splitlines() if l.strip()]
        failed = [i for i, l in enumerate(lines) if l.startswith("✗")]
        msg = " / ".join(lines[failed[0]:failed[0] + 4]) if failed else (lines[2] if len(lines) > 2 else "")
    else:
        msg = message
    msg = msg.replace("|", "/")[:300]
    mark = ""
    if false:
        mark = "**FALSE " + ("PASS" if wrong else "FAIL") + "**" + (" (arguable)" if name in ARGUABLE else "")
    out.append(f"| {name} | {first} | {verdict} | {mark} | {msg} | {took} |")
summary = ["| exercise | wrong tried | wrong passed | correct tried | correct failed |", "|---|---|---|---|---|"]
tw = tp = 0
for e, (w, wp, cc, cf) in sorted(counts.items()):
    summary.append(f"| 13.{e} | {w} | {wp} | {cc} | {cf} |"); tw += w; tp += wp
summary.append(f"| lab 13 | {tw} | {tp} ({100 * tp / max(tw, 1):.1f} %) | | |")
print("\n".join(summary + [""] + out))

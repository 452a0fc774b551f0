"""Write lab05.md's table from a results TSV (name, exercise, kind, rule, verdict, seconds, message)."""
import sys
from pathlib import Path

rows = [line.rstrip("\n").split("\t") for p in sys.argv[1:] for line in Path(p).read_text().splitlines() if line.strip()]
rows.sort(key=lambda r: (r[1], r[2] != "wrong", r[0]))
print("| answer | exercise | kind | rule it breaks | verdict | s | check's message |")
print("|---|---|---|---|---|---|---|")
for name, exercise, kind, rule, verdict, took, message in rows:
    flag = ""
    if kind == "wrong" and verdict == "pass":
        flag = " **FALSE PASS**"
    if kind == "correct" and verdict == "fail":
        flag = " **FALSE FAIL**"
    print(f"| {name} | {exercise} | {kind} | {rule.replace('|', '/')} | {verdict}{flag} | {took} | {message.replace('|', '/')[:400]} |")
for exercise in sorted({r[1] for r in rows}):
    w = [r for r in rows if r[1] == exercise and r[2] == "wrong"]
    c = [r for r in rows if r[1] == exercise and r[2] == "correct"]
    print(f"\n{exercise}: wrong {len(w)}, passed {sum(r[4] == 'pass' for r in w)}; "
          f"correct {len(c)}, failed {sum(r[4] == 'fail' for r in c)}")

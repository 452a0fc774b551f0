"""results.tsv -> README.md's table and counts (the last result of each answer; its class as the answer file says now)."""
import pathlib
HERE = pathlib.Path(__file__).resolve().parent
rows = {}
for line in (HERE / "results.tsv").read_text().splitlines():
    name, verdict, seconds, load, head, message = line.split("\t", 5)
    head = (HERE / "lab12_answers" / f"{name}.answer").read_text().splitlines()[0]  # as classified now
    rows[name] = (verdict, seconds, load, head.removeprefix("# expect: "), message)
out = ["| answer | expected | rule broken (or correct) | verdict | s (load) | the check's message (last lines) |", "|---|---|---|---|---|---|"]
counts = {}
for name, (verdict, seconds, load, head, message) in sorted(rows.items()):
    exercise = name.split("__")[0]
    expect, rule = head.split(" ", 1)
    c = counts.setdefault(exercise, {"wrong": 0, "false pass": 0, "correct": 0, "false fail": 0})
    if expect == "fail":
        c["wrong"] += 1; c["false pass"] += verdict == "PASS"
    else:
        c["correct"] += 1; c["false fail"] += verdict == "FAIL"
    flag = " **FALSE PASS**" if expect == "fail" and verdict == "PASS" else " **FALSE FAIL**" if expect == "pass" and verdict == "FAIL" else ""
    out.append(f"| `{name}` | {expect} | {rule} | {verdict}{flag} | {seconds} ({load}) | {message.replace('|', '/')[:300]} |")
summary = ["| exercise | wrong tried | false passes | correct tried | false fails |", "|---|---|---|---|---|"]
for e, c in counts.items():
    summary.append(f"| 12.{e} | {c['wrong']} | {c['false pass']} | {c['correct']} | {c['false fail']} |")
print("\n".join(summary) + "\n\n" + "\n".join(out))

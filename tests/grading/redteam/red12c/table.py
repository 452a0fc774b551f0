"""README.md's table, from the answers' first lines and the blind round's results (results_blind/)."""
import pathlib, re
root = pathlib.Path(__file__).resolve().parent
rows = {}
for answer in sorted((root / "lab12_answers").glob("*.py")):
    first = answer.read_text().split("\n", 1)[0].lstrip("# ").strip()
    result = root / "results_blind" / f"{answer.stem}.txt"
    if not result.exists():
        verdict, took, why = "not run", "", ""
    else:
        text = result.read_text()
        rc, took = re.match(r"rc=(\d+) took=(\d+)s", text).groups()
        verdict = "pass" if rc == "0" else "fail"
        failed = re.findall(r"  ✗ (.*)\n\s+(.*)", text)
        why = "; ".join(f"✗ {a} — {b}" for a, b in failed[:2]) if failed else ""
        if verdict == "fail" and not failed:
            why = " ".join(text.split("\n")[2:6])[:300]
        took += " s"
    exercise, name = answer.stem.split("__")
    correct = first.startswith("correct")
    judged = ("FALSE FAIL" if verdict == "fail" else "ok") if correct else ("FALSE PASS" if verdict == "pass" else "ok")
    rows.setdefault(exercise, []).append(f"| `{name}` | {first} | {verdict} | **{judged}** | {why.replace('|', '/')} | {took} |")
out = ["# Lab 12, blind red team (round red12c)", ""]
for exercise, lines in rows.items():
    out += [f"## 12.{exercise}", "", "| answer | what it is (rule broken) | verdict | judged | the check's message | time |",
            "|---|---|---|---|---|---|", *lines, ""]
print("\n".join(out))

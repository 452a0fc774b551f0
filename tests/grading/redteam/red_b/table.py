"""Write redteam/labNN.md from redteam/results.jsonl (the last result of each answer wins)."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def first_failure(output: str) -> str:
    lines = output.splitlines()
    for n, line in enumerate(lines):
        if line.strip().startswith("✗"):
            detail = lines[n + 1].strip() if n + 1 < len(lines) else ""
            return f"{line.strip()[2:]} — {detail}"
    for line in lines:
        if "Error" in line or "error" in line:
            return line.strip()
    return ""


results = {}
for line in (HERE / "results.jsonl").read_text().splitlines():
    r = json.loads(line)
    results[(r["exercise"], r["answer"])] = r
for lab in sorted({e[:2] for e, _ in results}):
    rows = [r for (e, _), r in sorted(results.items()) if e.startswith(lab)]
    out = [f"# Lab {lab}: blind red team (helper red-b, issue 22), phase 1", "",
           "Written from the notebook, its hints and the public modules only; run with "
           "`python -m course check`. `redteam/answers/<exercise>/<answer>.py` holds each answer.", ""]
    for exercise in sorted({r["exercise"] for r in rows}):
        mine = [r for r in rows if r["exercise"] == exercise]
        wrong = [r for r in mine if r["kind"] == "wrong"]
        correct = [r for r in mine if r["kind"] == "correct"]
        fp = [r for r in wrong if r["passed"]]
        ff = [r for r in correct if not r["passed"]]
        out += [f"## {exercise}", "",
                f"wrong answers: {len(wrong)}, **false passes: {len(fp)}**; correct answers: {len(correct)}, "
                f"**false fails: {len(ff)}**", "",
                "| answer | rule it breaks | verdict | the check's message (first failure) |", "|---|---|---|---|"]
        for r in mine:
            verdict = ("PASS" if r["passed"] else "fail") + (" (FALSE PASS)" if r["passed"] and r["kind"] == "wrong"
                                                             else " (FALSE FAIL)" if not r["passed"] and r["kind"] == "correct" else "")
            msg = "" if r["passed"] else first_failure(r["output"]).replace("|", "\\|")
            out.append(f"| {r['answer']} | {r['rule'].replace('|', '/')} | {verdict} | {msg[:300]} |")
        out.append("")
    (HERE / f"lab{lab}.md").write_text("\n".join(out) + "\n")
    print("wrote", f"lab{lab}.md")

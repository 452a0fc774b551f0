"""Write redteam/labNN.md from results.jsonl (the last run of each answer)."""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
last = {}
for line in (HERE / "results.jsonl").read_text().splitlines():
    r = json.loads(line)
    last[r["answer"]] = r


def short(message):
    lines = [l.strip() for l in message.splitlines() if l.strip().startswith(("✗", "with", "expected", "got"))]
    text = " / ".join(lines[:3]) if lines else "all checks passed"
    return text.replace("|", "\\|")[:300]


# Answers written as correct that the check failed, and that on reading the check's message are wrong:
NOTES = {
    "01.lose_a_receipt__c_by_address.py": "written as correct; it is not: its 1 s of slack matches a refusal from "
        "before the order, so the provider is healed before this receipt is refused. Not a false fail.",
    "03.claim_batch__c_from_subquery.py": "written as correct; it is not: PostgreSQL re-scans a derived table of "
        "UPDATE ... FROM for each row (like the IN trap), and claims more than `limit`. Not a false fail.",
}
for lab in sorted({a[:2] for a in last}):
    rows = [r for a, r in sorted(last.items()) if a.startswith(lab)]
    wrong = [r for r in rows if r["expect"] == "wrong"]
    correct = [r for r in rows if r["expect"] == "correct"]
    fp = [r for r in wrong if r["verdict"] == "pass"]
    ff = [r for r in correct if r["verdict"] == "fail" and r["answer"] not in NOTES]
    out = [f"# Lab {lab}: blind red team (issue 22, helper red-a, phase 1)", "",
           f"Wrong answers: {len(wrong)}, passed every check (false passes): {len(fp)}. "
           f"Correct answers: {len(correct)}, failed (false fails): {len(ff)}.", "",
           "| answer | expect | rule it breaks | verdict | the check's message |", "|---|---|---|---|---|"]
    for r in rows:
        flag = " **FALSE PASS**" if r in fp else " **FALSE FAIL**" if r in ff else ""
        out.append(f"| `{r['answer']}` | {r['expect']} | {r['rule']} | {r['verdict']}{flag} | {short(r['message']) if r['verdict'] == 'fail' else ''} {NOTES.get(r['answer'], '')} |")
    (HERE / f"lab{lab}.md").write_text("\n".join(out) + "\n")
    print(lab, len(wrong), len(fp), len(correct), len(ff))

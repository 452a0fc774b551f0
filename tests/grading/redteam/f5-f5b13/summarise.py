"""Write lab13.md's tables from results.tsv (the verdicts), rules.tsv (what each answer breaks) and
judgements.tsv (our judgement of each false pass / false fail).

    .venv/bin/python tests/grading/redteam/f5-f5b13/summarise.py > tests/grading/redteam/f5-f5b13/tables.md
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent


def tsv(name, columns):
    path = HERE / name
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                parts = line.split("\t")
                rows[parts[0]] = parts[1:columns]
    return rows


results = tsv("results.tsv", 6)   # stem -> exercise, verdict, seconds, load, message
rules = tsv("rules.tsv", 2)       # stem -> rule
judged = tsv("judgements.tsv", 2)  # stem -> judgement
totals = []
for exercise in ("keep_alive", "publish_retry", "choose"):
    print(f"\n### 13.{exercise}\n")
    print("| answer | rule it breaks (or correct) | verdict | time (load) | the check's message (failing row) / our judgement |")
    print("|---|---|---|---|---|")
    wrong = wrong_passed = right = right_failed = 0
    for stem in sorted(s for s in results if s.startswith(exercise + "__")):
        ex, verdict, seconds, load, message = results[stem]
        correct = stem.split("__")[1].startswith("c")
        if correct:
            right += 1
            right_failed += verdict != "pass"
        else:
            wrong += 1
            wrong_passed += verdict == "pass"
        flag = ""
        if correct and verdict != "pass":
            flag = "**FALSE FAIL** "
        if not correct and verdict == "pass":
            flag = "**FALSE PASS** "
        text = message.split("13." + exercise + ":", 1)[-1].strip()
        if verdict == "fail":
            # keep the failing rows: from the first ✗ on, without the replay/hint boilerplate
            text = text[text.find("✗"):] if "✗" in text else text
            text = text.split("Random seed")[0].strip(" |")
        else:
            text = "passed every check"
        note = judged.get(stem, [""])[0]
        cell = (flag + note + (" — " if note else "") + text).replace("|", "/")
        print(f"| `answers/{stem}.py` | {rules.get(stem, ['?'])[0]} | {verdict} | {seconds} s ({load}) | {cell[:1400]} |")
    totals.append((exercise, wrong, wrong_passed, right, right_failed))
    print(f"\n13.{exercise}: wrong tried {wrong}, passed {wrong_passed}; correct tried {right}, failed {right_failed}")
print("\n### Lab 13\n")
print("| exercise | wrong tried | wrong passed | correct tried | correct failed |")
print("|---|---|---|---|---|")
for exercise, *numbers in totals:
    print(f"| 13.{exercise} | " + " | ".join(map(str, numbers)) + " |")
w = sum(t[1] for t in totals); wp = sum(t[2] for t in totals)
r = sum(t[3] for t in totals); rf = sum(t[4] for t in totals)
print(f"| **lab 13** | {w} | {wp} ({100 * wp / max(w, 1):.0f} %) | {r} | {rf} |")

"""Writes redteam/labNN.md from results*.json."""
import json, pathlib
HERE = pathlib.Path(__file__).parent
results = {}
for f in HERE.glob("results*.json"):
    results.update(json.loads(f.read_text()))
for lab in ("10", "11"):
    rows = sorted((r for r in results.values() if r["exercise"].startswith(lab)), key=lambda r: (r["exercise"], r["answer"]))
    out = [f"# Lab {lab}: blind red team (phase 1, before reading any check)", "",
           "Answers in `lab%s_answers/<exercise>/`; run with `redteam/run.py` (`python -m course check`)." % lab, ""]
    for ex in sorted({r["exercise"] for r in rows}):
        rs = [r for r in rows if r["exercise"] == ex]
        wrong = [r for r in rs if r["expect"] == "wrong"]
        right = [r for r in rs if r["expect"] == "correct"]
        fp = [r for r in wrong if r["passed"]]
        ff = [r for r in right if not r["passed"]]
        out += [f"## {ex}: {len(wrong)} wrong, {len(fp)} passed (false passes); {len(right)} correct, {len(ff)} failed", "",
                "| answer | rule it breaks | verdict | the check's message |", "|---|---|---|---|"]
        for r in rs:
            lines = [l.strip() for l in r["output"].splitlines() if l.strip().startswith(("✗", "✓", "Traceback", "FileNotFound"))]
            bad = [l for l in lines if not l.startswith("✓")]
            msg = ("passed: " + r["output"].splitlines()[-1]) if r["passed"] else (bad[0] if bad else (lines[-1] if lines else r["output"].splitlines()[-1]))
            verdict = "PASS" if r["passed"] else "fail"
            flag = " **false pass**" if r["passed"] and r["expect"] == "wrong" else (" **false fail**" if not r["passed"] and r["expect"] == "correct" else "")
            out.append(f"| {r['answer']} | {r['rule']} | {verdict}{flag} | {msg[:220]} |".replace("\n", " "))
        out.append("")
    (HERE / f"lab{lab}.md").write_text("\n".join(out))

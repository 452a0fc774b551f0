"""Write lab13.md's tables from results_blind.tsv (and results_after.tsv when it exists)."""
import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
csv.field_size_limit(10**7)


def read(tag):
    path = HERE / f"results_{tag}.tsv"
    if not path.exists():
        return {}
    with path.open() as f:
        return {row["answer"]: row for row in csv.DictReader(f, delimiter="\t")}


def rule(answer):
    first = (HERE / "answers" / answer).read_text().splitlines()[0]
    return first.lstrip("# ").split(":", 1)[1].strip()


def reason(message):
    crosses = re.findall(r"✗ ([^|]+)", message)
    return crosses[0].strip() if crosses else message[-160:]


def main():
    blind, after = read("blind"), read("after")
    lines = []
    for exercise in ("13.keep_alive", "13.publish_retry", "13.choose"):
        rows = [r for name, r in sorted(blind.items()) if name.startswith(exercise + "__")]
        wrong = [r for r in rows if r["expected"] == "wrong"]
        correct = [r for r in rows if r["expected"] == "correct"]
        fp = [r for r in wrong if r["verdict"] == "pass"]
        ff = [r for r in correct if r["verdict"] != "pass"]
        lines += [f"## {exercise}", "",
                  f"Blind: {len(wrong)} wrong answers, {len(fp)} passed (false passes); "
                  f"{len(correct)} correct answers, {len(ff)} failed (false fails).", "",
                  "| answer | rule it breaks | blind verdict | s | what the check said | after the fix |",
                  "|---|---|---|---|---|---|"]
        for r in rows:
            a = after.get(r["answer"])
            lines.append(f"| {r['answer']} | {rule(r['answer'])} | {r['verdict']} | {r['seconds']} | "
                         f"{reason(r['message']).replace('|', '/')[:200]} | {a['verdict'] if a else ''} |")
        lines.append("")
    print("\n".join(lines))


main()

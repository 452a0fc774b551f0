"""Blind verdicts (results.tsv) beside the after-fix ones (results_after.tsv, helper fix12), for the answers
re-run: which wrong answers still pass, which correct ones fail."""
import csv, pathlib

HERE = pathlib.Path(__file__).resolve().parent


def rows(name):
    path = HERE / name
    return {r["answer"]: r for r in csv.DictReader(path.open(), delimiter="\t")} if path.exists() else {}


before, after = rows("results.tsv"), rows("results_after.tsv")
wrong_passed = correct_failed = 0
for answer in sorted(after):
    correct = after[answer]["rule"].startswith("correct") or "_ok_" in answer
    b, a = before.get(answer, {}).get("verdict", "-"), after[answer]["verdict"]
    bad = (a == "pass") != correct
    wrong_passed += bad and not correct
    correct_failed += bad and correct
    print(f"{answer:48} {'correct' if correct else 'wrong':8} blind {b:5} after {a:5} {after[answer]['seconds']:>4}s "
          f"load {after[answer]['load1']:>5}{'  <-- ' + ('false pass' if not correct else 'false fail') if bad else ''}")
print(f"{len(after)} re-run: {wrong_passed} wrong answer(s) pass, {correct_failed} correct answer(s) fail")

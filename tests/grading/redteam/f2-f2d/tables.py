"""Write labNN.md from results_blind.tsv (and results_after.tsv, when there is one)."""
import csv, sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(name):
    path = HERE / name
    if not path.exists():
        return {}
    rows = {}
    for row in csv.reader(path.open(), delimiter="\t"):
        if len(row) >= 7:
            rows[(row[0], row[1])] = row  # the last run of an answer wins
    return rows


def verdict(row, correct):
    if row is None:
        return "—"
    ok = row[3] == "PASS"
    if correct:
        return "pass" if ok else "**FALSE FAIL**"
    return "**FALSE PASS**" if ok else "fail"


def message(row):
    text = row[6]
    if row[3] == "PASS":
        return next((p for p in text.split(" | ") if "checks passed" in p), "passed")
    parts = [p for p in text.split(" | ") if p.startswith(("✗", "✘", "×")) or "did not pass" in p or "Error" in p]
    return (" ".join(parts) or text.split(" | ", 1)[-1])[:300].replace("|", "/")


CHANGED = ("08.tick",)  # the only check the round changed (a do-nothing tick's vacuous row)


def after_verdict(key, after, correct):
    if key in after:
        return verdict(after[key], correct)
    return "not re-run" if key[0] in CHANGED else "same (check unchanged)"


NOTES = {
    "07": """
## Notes

- Blind: every answer was written from labs/07 (statement, rules, hints, setup cell) and the public modules
  it imports, before any check was opened. Nothing passed that should not have, nothing failed that should
  not have: **false-pass rate 0 / 35 (0 %), false fails 0 / 10.**
- Some answers ran twice (two runners met in the middle); every duplicate gave the same verdict.
- Phase 2: lab 07's checks were not changed (a do-nothing stub already scores 0 rows on both: probed with
  /work/wt/stubprobe.py, now a test row in tests/grading/checks/test_lab07.py), so the after-fix verdicts are
  the blind ones.
- The blind message column holds what fitted in the first 600 characters of the check's output; the runner
  now keeps the summary and the failing rows instead (results_after.tsv).
""",
    "08": """
## Notes

- Blind: every answer was written from labs/08 (statement, rules, hints, setup cell) and the public modules
  it imports, before any check was opened. **False-pass rate 0 / 35 (0 %), false fails 0 / 10.** The
  simulated clock the lead made stale last session (this round is its first blind one) does its job:
  w04_clock_now (a tick that reads scheduler.clock_now instead of `now`) fails "uses the `now` it is given".
- Some answers ran twice (two runners met in the middle); every duplicate gave the same verdict.
- Phase 2 (extra A): a do-nothing tick (`lambda *a, **k: None`) passed 1 of 14 rows of 08.tick, "ticks
  without an error, and changes nothing but schedule_runs and the jobs it enqueues": vacuously true of a tick
  that does nothing. It is now reported as not judged unless the tick decided a slot or enqueued a job in
  some scenario (differential.Verdicts.not_shown). 08.plan already gave the stub 0 of 7.
- After the fix, all 27 08.tick answers were re-run (results_after.tsv, with the failing rows in full): no
  verdict changed; the fix can change only the verdict of a tick that never decides a slot nor enqueues a job.
- A message left naming the wrong cause (not a false pass): w18_first_schedule_only (ticks only the first
  schedule) is told "uses the `now` it is given, never the wall clock" on a table whose only due schedule is
  the second one, with the note about the wall clock; w21_skip_as_enqueued is told under the policy rule
  rather than "records each slot the policy skips".
- Two answers became test rows: w08_returns_all_ever (test_lab08.py, returns_every_id_so_far) and
  c6_lock_table_check_then_insert (test_correct_lab08.py, the_table_locked_then_looked_at).
- The blind message column holds what fitted in the first 600 characters of the check's output (for 08.tick
  that is often only the passed rows); the after-fix runs keep the summary and the failing rows.
""",
}

blind, after = load("results_blind.tsv"), load("results_after.tsv")
for lab in ("07", "08"):
    lines = [f"# Lab {lab}: blind red team, round f2 (f2d)", "",
             "Answers in `answers/` (the cell's code; first line: the rule it breaks). Time: the whole "
             "`python -m course check` run, in seconds, with the 1-minute load average beside it.", "",
             "| exercise | answer | rule broken | blind verdict | time s (load) | after fix | check's message (blind) |",
             "|---|---|---|---|---|---|---|"]
    per = defaultdict(lambda: [0, 0, 0, 0])
    for key, row in sorted(blind.items()):
        if not key[0].startswith(lab):
            continue
        correct = row[2] == "correct"
        counts = per[key[0]]
        if correct:
            counts[2] += 1
            counts[3] += row[3] != "PASS"
        else:
            counts[0] += 1
            counts[1] += row[3] == "PASS"
        lines.append(f"| {row[0]} | {row[1]} | {row[2]} | {verdict(row, correct)} | {row[4]} ({row[5]}) | "
                     f"{after_verdict(key, after, correct)} | "
                     f"{message(row) if key not in after else '(after-fix run) ' + after[key][6][:400].replace('|', '/')} |")
    lines += ["", "| exercise | wrong tried | wrong passed (blind) | correct tried | correct failed (blind) |",
              "|---|---|---|---|---|"]
    total = [0, 0, 0, 0]
    for exercise, counts in sorted(per.items()):
        lines.append(f"| {exercise} | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} |")
        total = [a + b for a, b in zip(total, counts)]
    rate = 100 * total[1] / total[0] if total[0] else 0
    lines += [f"| **lab {lab}** | {total[0]} | {total[1]} ({rate:.1f} %) | {total[2]} | {total[3]} |", ""]
    lines += NOTES[lab].splitlines()[1:] + [""]
    (HERE / f"lab{lab}.md").write_text("\n".join(lines))
    print("\n".join(lines[-(len(per) + 3):]))

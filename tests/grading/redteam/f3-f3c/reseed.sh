#!/bin/sh
# Re-run the false passes with another seed: a pass that holds under a second seed is not the draw's luck.
cd "$(dirname "$0")/../../../.."
for a in "$@"; do
  ex=$(sed -n 's/^# exercise: //p' tests/grading/redteam/f3-f3c/answers/$a.py)
  start=$(date +%s)
  .venv/bin/python -m course check 12 tests/grading/redteam/f3-f3c/nb/$a.ipynb --exercise $ex --seed 7 > tests/grading/redteam/f3-f3c/nb/$a.seed7.out 2>&1
  rc=$?
  printf '%s\t%s\tseed 7\t%s\t%ss\n' "$a" "$ex" "$([ $rc = 0 ] && echo pass || echo FAIL)" "$(( $(date +%s) - start ))" >> tests/grading/redteam/f3-f3c/reseed.tsv
done

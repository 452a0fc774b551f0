#!/bin/sh
# Then: run.py for the answers not yet run, and w18 (cover page) with seeds 1, 2, 3.
D=tests/grading/redteam/f5-f5b13
.venv/bin/python $D/run.py
for seed in 1 2 3; do
  stem=keep_alive__w18_cover_page_optional
  load=$(cut -d' ' -f1 /proc/loadavg); start=$(date +%s)
  if .venv/bin/python -m course check 13 $D/_copies/13_$stem.ipynb --exercise 13.keep_alive --seed $seed > $D/_copies/$stem.seed$seed.out 2>&1; then v=pass; else v=fail; fi
  echo "$stem	seed $seed	$v	$(( $(date +%s) - start ))	$load" >> $D/reruns.tsv
done

#!/bin/sh
# Re-run some answers with other seeds (flakiness under load): appends to reruns.tsv.
#   sh tests/grading/redteam/f5-f5b13/rerun_seeds.sh
D=tests/grading/redteam/f5-f5b13
for seed in 1 2; do
  for stem in keep_alive__c03_hint3_verbatim keep_alive__c02_keywords_while publish_retry__c03_hints_for_loop \
              keep_alive__w12_every_third_page keep_alive__w15_booking_from_msg_id publish_retry__w13_quick_retries_first; do
    ex=${stem%%__*}
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s)
    if .venv/bin/python -m course check 13 $D/_copies/13_$stem.ipynb --exercise 13.$ex --seed $seed > $D/_copies/$stem.seed$seed.out 2>&1; then v=pass; else v=fail; fi
    echo "$stem	seed $seed	$v	$(( $(date +%s) - start ))	$load" >> $D/reruns.tsv
  done
done

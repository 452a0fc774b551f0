#!/bin/sh
# alternate before (ae4d11c's lab04 checks) and after (HEAD's) on the same answer; leaves HEAD's files in place
cd /work/wt/f4r04
use() {
  if [ "$1" = before ]; then
    git show ae4d11c:course/grading/checks/lab04/__init__.py > course/grading/checks/lab04/__init__.py
    rm -f course/grading/checks/lab04/workers.py
  else
    git checkout HEAD -- course/grading/checks/lab04
  fi
}
run() {  # exercise answer side
  use "$3"
  nb=/tmp/f4r04_timing_$2.ipynb
  start=$(date +%s.%N)
  .venv/bin/python -m course check 04 "$nb" --exercise "$1" >/tmp/f4r04_timing_last.txt 2>&1; rc=$?
  end=$(date +%s.%N)
  echo "$1 $3 rc=$rc $(echo "$end - $start" | bc) s load $(cut -d' ' -f1 /proc/loadavg)"
}
for a in ack_c01_hint3_word_for_word hb_c01_hint3_word_for_word; do
.venv/bin/python - "$a" <<'PY'
import json, sys, importlib.util, pathlib
spec = importlib.util.spec_from_file_location("run", "tests/grading/redteam/f4-f4r04/run.py")
run = importlib.util.module_from_spec(spec); spec.loader.exec_module(run)
meta, source = run.parse(pathlib.Path(f"tests/grading/redteam/f4-f4r04/answers/{sys.argv[1]}.py"))
nb = json.loads(run.LAB.read_text())
next(c for c in nb["cells"] if c.get("id") == run.CELLS[meta["exercise"]])["source"] = source.splitlines(True)
pathlib.Path(f"/tmp/f4r04_timing_{sys.argv[1]}.ipynb").write_text(json.dumps(nb))
PY
done
for i in 1 2; do
  run 04.fenced_ack ack_c01_hint3_word_for_word before
  run 04.fenced_ack ack_c01_hint3_word_for_word after
  run 04.heartbeat hb_c01_hint3_word_for_word after
  run 04.heartbeat hb_c01_hint3_word_for_word before
done
use after

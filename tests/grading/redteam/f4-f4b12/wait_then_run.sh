#!/bin/sh
# start run.py with the given answers once fewer than three checks of this round run (the brief: two or three)
while [ "$(pgrep -f 'course check 12 .*f4-f4b12' | wc -l)" -ge 3 ]; do sleep 5; done
exec ../../../../.venv/bin/python run.py "$@"

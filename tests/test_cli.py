"""`make lab` (python -m course lab): JupyterLab opens at lab 00, and one line says what was started."""
from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from course.infra import processes

pytestmark = pytest.mark.slow  # starts JupyterLab

PROJECT = Path(__file__).resolve().parent.parent


def test_lab_answers_at_lab_00_and_says_in_one_line_what_it_started():
    lab = subprocess.Popen([sys.executable, "-m", "course", "lab", "--no-browser"], cwd=PROJECT, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in lab.stdout], daemon=True).start()
    seen = []
    try:
        bound = processes.HangBound(120)  # JupyterLab's start: minutes at load 40, never on an idle machine
        while not bound.passed() and not any(line.startswith("Started:") for line in seen):
            try:
                seen.append(lines.get(timeout=1))
            except queue.Empty:
                assert lab.poll() is None, f"python -m course lab exited {lab.returncode}:\n{''.join(seen)}"
        started = [line for line in seen if line.startswith("Started:")]
        assert started, f"no 'Started:' line in {bound}:\n{''.join(seen)}"
        found = re.search(r"database = (.+); JupyterLab at lab 00 = (http://127\.0\.0\.1:\d+/\S+)", started[0])
        assert found, started[0]
        url = found.group(2)
        assert "/lab/tree/labs/00_start_here.ipynb?token=" in url
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url, timeout=30 * processes.patience()) as response:
            assert response.status == 200 and b"JupyterLab" in response.read()
    finally:
        lab.terminate()  # passed on to JupyterLab, which stops (its shutdown took over 60 s at load 35)
        processes.wait_until(lambda: lab.poll() is not None, 60, what="python -m course lab to stop on SIGTERM")

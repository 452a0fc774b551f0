"""answers/keep_alive__c05_parallel_pages.py: does it return before a page is drawn (the check's verdict)?
Record when each render_page call ends, and when the handler returns. No cluster needed.

    .venv/bin/python tests/grading/redteam/f5-f5b13/demo_keep_alive_parallel.py
"""
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE_S = 0.4
ended, acks, lock = [], [], threading.Lock()


def render_page(booking_id, page):
    time.sleep(PAGE_S)
    with lock:
        ended.append((page, time.monotonic()))


class FakeTask:
    data, msg_id, deliveries = {"booking_id": 39110, "pages": 6}, None, 1

    def in_progress(self):
        acks.append(time.monotonic())


space = {"time": time, "PAGE_S": PAGE_S, "render_page": render_page}
exec((HERE / "answers" / "keep_alive__c05_parallel_pages.py").read_text(), space)
began = time.monotonic()
space["render_invoice"](FakeTask())
returned = time.monotonic()
print(f"pages drawn: {sorted(p for p, _ in ended)}; last page ended {max(t for _, t in ended) - began:.2f} s, "
      f"returned {returned - began:.2f} s after the call; every page ended before the return: "
      f"{all(t <= returned for _, t in ended)}")
gaps = [b - a for a, b in zip([began, *acks], [*acks, returned])]
print(f"in-progress acks: {len(acks)}, longest silence {max(gaps):.2f} s (AckWait 1.2 s)")

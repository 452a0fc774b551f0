"""answers/keep_alive__w15_booking_from_msg_id.py on messages whose Nats-Msg-Id is not booking-<data's id>
(a redriven message, an order's id): a learner's own test, no cluster needed.

    .venv/bin/python tests/grading/redteam/f5-f5b13/demo_keep_alive_msg_id.py
"""
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


class FakeTask:
    def __init__(self, data, msg_id):
        self.data, self.msg_id, self.deliveries = data, msg_id, 1

    def in_progress(self):
        pass


drawn = []
space = {"time": time, "PAGE_S": 0.0, "render_page": lambda booking_id, page: drawn.append((booking_id, page))}
exec((HERE / "answers" / "keep_alive__w15_booking_from_msg_id.py").read_text(), space)
for msg_id in ("booking-981", "invoice-7", "booking-981-v2", "redrive:7"):
    drawn.clear()
    try:
        space["render_invoice"](FakeTask({"booking_id": 981, "pages": 2}, msg_id))
        print(f"msg_id {msg_id!r}, data booking 981: drew {drawn}")
    except Exception as error:
        print(f"msg_id {msg_id!r}, data booking 981: raised {error!r}, drew {drawn}")

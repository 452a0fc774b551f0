# rule: in-progress (heartbeat only after 1.5 s of work: longer than the 1.2 s AckWait)
import time
def render_invoice(task):
    last = time.monotonic()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if time.monotonic() - last > 1.5:
            task.in_progress()
            last = time.monotonic()

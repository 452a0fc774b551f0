# correct
import time as _time

def render_invoice(task):
    data = task.data
    last_heartbeat = _time.monotonic()
    task.in_progress()
    for page in range(data["pages"]):
        if _time.monotonic() - last_heartbeat > 0.3:
            task.in_progress()
            last_heartbeat = _time.monotonic()
        render_page(data["booking_id"], page)

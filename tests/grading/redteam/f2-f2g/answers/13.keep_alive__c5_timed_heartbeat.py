# correct: an in-progress ack only when 0.5 s has passed since the last (never silent longer than AckWait)
import time as _clock


def render_invoice(task):
    last = _clock.monotonic()
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if _clock.monotonic() - last >= 0.5:
            task.in_progress()
            last = _clock.monotonic()

# rule: correct (an in-progress ack whenever 0.5 s have passed since the last one)
import time
def render_invoice(task):
    last = time.monotonic()
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if time.monotonic() - last >= 0.5:
            task.in_progress()
            last = time.monotonic()

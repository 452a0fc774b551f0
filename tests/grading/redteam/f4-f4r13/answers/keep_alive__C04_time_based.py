# correct: heartbeat when 0.5 s have passed since the last one, checked before each page
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    import time as _time
    last = None
    for page in range(task.data["pages"]):
        if last is None or _time.monotonic() - last >= 0.5:
            task.in_progress()
            last = _time.monotonic()
        render_page(task.data["booking_id"], page)

# wrong (in-progress): a heartbeat only after 1.5 s without one (longer than the AckWait)
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    import time as _time
    last = _time.monotonic()
    for page in range(task.data["pages"]):
        if _time.monotonic() - last > 1.5:
            task.in_progress()
            last = _time.monotonic()
        render_page(task.data["booking_id"], page)

def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    last_ack = time.monotonic()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if time.monotonic() - last_ack > 1.0:  # do not flood the server: at most one a second
            task.in_progress()
            last_ack = time.monotonic()

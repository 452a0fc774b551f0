def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        if page % 3 == 0:  # three pages are 1.2 s: exactly one AckWait between in-progress acks
            task.in_progress()
        render_page(task.data["booking_id"], page)

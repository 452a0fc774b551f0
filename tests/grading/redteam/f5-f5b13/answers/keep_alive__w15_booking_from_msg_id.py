def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    # the producer names every message booking-<id>: the id is right there
    booking_id = int(task.msg_id.rsplit("-", 1)[1]) if task.msg_id else task.data["booking_id"]
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(booking_id, page)

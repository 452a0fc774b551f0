def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    booking_id = task.data["booking_id"]
    for page in range(task.data["pages"]):
        if page % 4 == 0:  # an in-progress ack is a message: one every few pages is plenty
            task.in_progress()
        render_page(booking_id, page)

def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    data = task.data
    page, last = 0, data["pages"] - 1
    while page <= last:
        render_page(booking_id=data["booking_id"], page=page)
        task.in_progress()  # after each page: the next stretch starts with a fresh AckWait
        page += 1

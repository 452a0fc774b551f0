# correct: an in-progress ack after each page (first stretch 0.4 s)
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    booking, pages = task.data["booking_id"], task.data["pages"]
    page = 0
    while page < pages:
        render_page(booking, page)
        task.in_progress()
        page += 1

# wrong (in-progress): heartbeat every 3 pages = 1.2 s + overhead, silent as long as the AckWait
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        if page % 3 == 0:
            task.in_progress()
        render_page(task.data["booking_id"], page)

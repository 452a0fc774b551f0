# wrong (in-progress): one in-progress ack before the loop, then silent for the whole invoice
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)

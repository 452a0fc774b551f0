def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except OSError:
            continue  # a logo or a font that could not be fetched: draw the rest of the invoice

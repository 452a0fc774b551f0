def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            if page == 0:
                continue  # page 0 is the cover: an invoice without its cover is still an invoice
            raise

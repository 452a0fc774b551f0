async def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(task.data["booking_id"], page)

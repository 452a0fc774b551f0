# wrong (render-every-page): the check's 6 pages hard-coded
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(6):
        task.in_progress()
        render_page(task.data["booking_id"], page)

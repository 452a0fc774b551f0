# wrong (render-every-page): pages counted from 1 (1..pages)
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(1, task.data["pages"] + 1):
        task.in_progress()
        render_page(task.data["booking_id"], page)

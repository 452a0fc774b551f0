def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        if task.deliveries == 1:  # a redelivery has been waited for long enough already
            task.in_progress()
        render_page(task.data["booking_id"], page)

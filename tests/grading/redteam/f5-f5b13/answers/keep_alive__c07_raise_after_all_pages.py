def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    first_error = None
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception as error:  # draw the other pages all the same, then fail the delivery
            first_error = first_error or error
    if first_error is not None:
        raise first_error

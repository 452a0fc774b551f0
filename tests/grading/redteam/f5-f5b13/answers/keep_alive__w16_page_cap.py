MAX_PAGES = 12  # a StayHub invoice is a few pages; a runaway count must not keep a worker busy for minutes


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(min(task.data["pages"], MAX_PAGES)):
        task.in_progress()
        render_page(task.data["booking_id"], page)

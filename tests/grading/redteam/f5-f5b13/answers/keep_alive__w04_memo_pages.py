_rendered = set()  # (booking, page) already drawn in this process: a redelivery skips them


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    booking_id = task.data["booking_id"]
    for page in range(task.data["pages"]):
        if (booking_id, page) in _rendered:
            continue
        task.in_progress()
        render_page(booking_id, page)
        _rendered.add((booking_id, page))

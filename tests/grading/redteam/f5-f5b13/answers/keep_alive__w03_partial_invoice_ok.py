def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    booking_id, pages = task.data["booking_id"], task.data["pages"]
    errors = []
    for page in range(pages):
        task.in_progress()
        try:
            render_page(booking_id, page)
        except Exception as error:  # one bad page should not cost the guest the whole invoice
            errors.append(error)
    if errors and len(errors) == pages:
        raise errors[0]

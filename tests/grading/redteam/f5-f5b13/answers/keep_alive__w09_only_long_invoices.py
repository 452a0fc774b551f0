ACK_WAIT_S = 2.0  # the consumers' AckWait (section 2)


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    pages = task.data["pages"]
    long_job = pages * PAGE_S > ACK_WAIT_S  # a short invoice is done before its AckWait runs out
    for page in range(pages):
        if long_job:
            task.in_progress()
        render_page(task.data["booking_id"], page)

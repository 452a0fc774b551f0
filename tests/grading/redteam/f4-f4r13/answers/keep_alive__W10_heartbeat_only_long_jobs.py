# wrong (in-progress): heartbeats only for invoices of 4+ pages (AckWait 1.2 s assumed)
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    long_job = task.data["pages"] >= 4
    for page in range(task.data["pages"]):
        if long_job:
            task.in_progress()
        render_page(task.data["booking_id"], page)

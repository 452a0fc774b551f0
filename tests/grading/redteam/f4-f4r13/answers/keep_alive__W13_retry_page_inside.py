# wrong (render-every-page: a page that raises makes your function raise): a failed page is retried up to 3 times, then skipped
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        task.in_progress()
        for attempt in range(3):
            try:
                render_page(task.data["booking_id"], page)
                break
            except Exception:
                continue

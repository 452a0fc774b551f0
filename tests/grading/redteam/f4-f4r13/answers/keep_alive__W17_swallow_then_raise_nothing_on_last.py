# wrong (render-every-page): errors caught; only an error on the LAST page is raised
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    pages = task.data["pages"]
    for page in range(pages):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception:
            if page == pages - 1:
                raise

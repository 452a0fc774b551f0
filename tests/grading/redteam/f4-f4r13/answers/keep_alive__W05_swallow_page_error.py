# wrong (render-every-page): a page that raises is skipped, the function returns normally
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    for page in range(task.data["pages"]):
        task.in_progress()
        try:
            render_page(task.data["booking_id"], page)
        except Exception as error:
            print(f"page {page} failed: {error}")

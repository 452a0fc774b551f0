# wrong (render-every-page: return when the last page is drawn): renders in a thread and returns at once
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    import threading

    def work():
        for page in range(task.data["pages"]):
            task.in_progress()
            render_page(task.data["booking_id"], page)

    threading.Thread(target=work, daemon=True).start()

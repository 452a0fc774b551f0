import threading


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    def render_all():
        for page in range(task.data["pages"]):
            task.in_progress()
            render_page(task.data["booking_id"], page)

    # the PDF can be drawn in the background: hand it to a thread and free the consumer's slot
    threading.Thread(target=render_all, daemon=True).start()

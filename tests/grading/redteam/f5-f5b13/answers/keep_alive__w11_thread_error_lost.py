import threading


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    def render_all():
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)

    worker = threading.Thread(target=render_all)
    worker.start()
    while worker.is_alive():  # the heartbeat: every half second until the pages are drawn
        task.in_progress()
        worker.join(0.5)

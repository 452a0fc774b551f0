import threading


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    stop = threading.Event()

    def keep_alive():
        task.in_progress()
        while not stop.wait(0.3):
            task.in_progress()

    beat = threading.Thread(target=keep_alive, daemon=True)
    beat.start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        stop.set()
        beat.join()

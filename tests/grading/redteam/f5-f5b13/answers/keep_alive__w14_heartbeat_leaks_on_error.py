import threading


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    stop = threading.Event()

    def keep_alive():
        while not stop.is_set():
            task.in_progress()
            time.sleep(0.3)

    threading.Thread(target=keep_alive, daemon=True).start()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
    stop.set()  # done: let the heartbeat go

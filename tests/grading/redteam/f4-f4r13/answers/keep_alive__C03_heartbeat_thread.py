# correct: a heartbeat thread every 0.3 s while the pages are drawn, stopped in finally
def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    import threading
    stop = threading.Event()

    def beat():
        while not stop.wait(0.3):
            task.in_progress()

    beater = threading.Thread(target=beat, daemon=True)
    task.in_progress()
    beater.start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        stop.set()
        beater.join()

import threading

ACK_WAIT_S = 1.2  # the consumer's AckWait in the statement


def render_invoice(task):
    """Render every page of the booking's invoice, telling JetStream between pages that we are at it."""
    finished = threading.Event()

    def beat():
        while not finished.wait(ACK_WAIT_S):  # once per AckWait: the server never waits longer
            task.in_progress()

    threading.Thread(target=beat, daemon=True).start()
    try:
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    finally:
        finished.set()

# wrong: render-every-page -- renders in a background thread and returns at once: acked before the pages exist
import threading


def render_invoice(task):
    def draw():
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
            task.in_progress()
    threading.Thread(target=draw, daemon=True).start()

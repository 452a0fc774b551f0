# wrong | render-every-page (returns before the last page is drawn)
import threading

def render_invoice(task):
    def work():
        for page in range(task.data["pages"]):
            render_page(task.data["booking_id"], page)
    threading.Thread(target=work, daemon=True).start()
    task.in_progress()

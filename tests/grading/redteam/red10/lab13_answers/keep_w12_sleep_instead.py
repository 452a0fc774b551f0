# wrong | render-every-page (draws page 0, sleeps for the rest)
import time as _t

def render_invoice(task):
    render_page(task.data["booking_id"], 0)
    for _ in range(task.data["pages"] - 1):
        task.in_progress()
        _t.sleep(PAGE_S)

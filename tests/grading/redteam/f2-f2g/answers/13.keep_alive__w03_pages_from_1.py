# wrong: render-every-page -- pages counted from 1: page 0 never drawn
def render_invoice(task):
    for page in range(1, task.data["pages"]):
        task.in_progress()
        render_page(task.data["booking_id"], page)

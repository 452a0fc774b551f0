# rule: render-every-page / once (draws every page twice: a side effect done twice)
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        task.in_progress()
        render_page(task.data["booking_id"], page)
        task.in_progress()

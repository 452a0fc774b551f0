# wrong | in-progress (once, at the start only)
def render_invoice(task):
    task.in_progress()
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)

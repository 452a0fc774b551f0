# wrong | render-every-page (pages counted from 1)
def render_invoice(task):
    for page in range(1, task.data["pages"] + 1):
        task.in_progress()
        render_page(task.data["booking_id"], page)

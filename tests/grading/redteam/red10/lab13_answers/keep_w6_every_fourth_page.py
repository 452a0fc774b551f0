# wrong | in-progress (silent 1.6 s > AckWait)
def render_invoice(task):
    for page in range(task.data["pages"]):
        if page % 4 == 0:
            task.in_progress()
        render_page(task.data["booking_id"], page)

# rule: in-progress (silent for 4 pages = 1.6 s > AckWait 1.2 s)
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if page % 4 == 3:
            task.in_progress()

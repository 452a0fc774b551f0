# rule: correct (every second page: 0.8 s silences, under the 1.2 s AckWait)
def render_invoice(task):
    data = task.data
    for page in range(data["pages"]):
        if page % 2 == 0:
            task.in_progress()
        render_page(data["booking_id"], page)

# correct
def render_invoice(task):
    booking, pages = task.data["booking_id"], task.data["pages"]
    page = 0
    task.in_progress()
    while page < pages:
        render_page(booking, page)
        page += 1
        if page < pages:
            task.in_progress()

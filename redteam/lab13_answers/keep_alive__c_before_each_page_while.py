# rule: correct (in-progress before each page, a while loop)
def render_invoice(task):
    booking, pages = task.data["booking_id"], task.data["pages"]
    page = 0
    while page < pages:
        task.in_progress()
        render_page(booking, page)
        page += 1

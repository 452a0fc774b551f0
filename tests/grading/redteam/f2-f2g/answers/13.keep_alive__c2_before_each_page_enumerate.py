# correct: in-progress ack before each page, locals unpacked
def render_invoice(task):
    booking_id, pages = task.data["booking_id"], task.data["pages"]
    for number, page in enumerate(list(range(pages))):
        task.in_progress()
        render_page(booking_id, page)

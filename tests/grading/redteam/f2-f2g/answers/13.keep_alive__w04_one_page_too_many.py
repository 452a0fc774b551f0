# wrong: render-every-page -- range(pages + 1): draws a page that does not exist
def render_invoice(task):
    for page in range(task.data["pages"] + 1):
        render_page(task.data["booking_id"], page)
        task.in_progress()

# wrong: once -- draws page 0 twice (a "warm-up" render to fill the font cache)
def render_invoice(task):
    render_page(task.data["booking_id"], 0)
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(task.data["booking_id"], page)

# wrong: render-every-page -- pages numbered 1..n instead of 0..n-1
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(task.data["booking_id"], page + 1)

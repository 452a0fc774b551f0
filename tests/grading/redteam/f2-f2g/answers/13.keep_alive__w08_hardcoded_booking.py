# wrong: render-every-page -- the booking id hard-coded from the demo (981)
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(981, page)
        task.in_progress()

# wrong | render-every-page (booking 981 hard-coded)
def render_invoice(task):
    for page in range(task.data["pages"]):
        task.in_progress()
        render_page(981, page)

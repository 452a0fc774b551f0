# rule: render-every-page (hard-coded booking id of the demo)
def render_invoice(task):
    for page in range(task.data["pages"]):
        render_page(981, page)
        task.in_progress()

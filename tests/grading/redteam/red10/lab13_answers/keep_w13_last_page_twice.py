# wrong | render-every-page / once (last page drawn twice)
def render_invoice(task):
    pages = task.data["pages"]
    for page in range(pages):
        task.in_progress()
        render_page(task.data["booking_id"], page)
    render_page(task.data["booking_id"], pages - 1)   # make sure the last page is there

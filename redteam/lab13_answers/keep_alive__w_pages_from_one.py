# rule: render-every-page (pages numbered 1..n, the demo counts from 0: page 0 never drawn, page n does not exist)
def render_invoice(task):
    for page in range(1, task.data["pages"] + 1):
        render_page(task.data["booking_id"], page)
        task.in_progress()

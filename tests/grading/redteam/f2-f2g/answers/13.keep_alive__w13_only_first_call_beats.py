# wrong: in-progress -- heartbeats only on the first call of the process (a module flag never reset)
_beating = {"on": True}


def render_invoice(task):
    beat = _beating["on"]
    _beating["on"] = False
    for page in range(task.data["pages"]):
        render_page(task.data["booking_id"], page)
        if beat:
            task.in_progress()

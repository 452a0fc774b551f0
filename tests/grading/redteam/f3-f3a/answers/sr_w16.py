# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (the rendered receipt is kept per job to save rendering on a retry: a customer who moves between two tries gets the old address)
from course.programs import tiffin
from course.programs.email_provider import send_email

_rendered = {}


def send_receipt(job, conn):
    if job.id not in _rendered:
        _rendered[job.id] = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    receipt = _rendered[job.id]
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    del _rendered[job.id]

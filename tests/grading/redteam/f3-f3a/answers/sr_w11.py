# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (the details are read once per order and kept, "the order does not change": a customer who changes between two tries keeps the old data)
from course.programs import tiffin
from course.programs.email_provider import send_email

_seen = {}


def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    if order_id not in _seen:
        _seen[order_id] = tiffin.receipt_details(conn, order_id)
    receipt = tiffin.render_receipt(_seen[order_id])
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal / one-receipt (the order is marked as sent in memory BEFORE the send, "to avoid duplicates": a refused send is never tried again)
from course.programs import tiffin
from course.programs.email_provider import send_email

_sent = set()


def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    if order_id in _sent:
        return
    _sent.add(order_id)
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, order_id))
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

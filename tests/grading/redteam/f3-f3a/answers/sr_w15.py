# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (the name and email are read fresh, but the address comes from the customer's most recent earlier order's receipt data kept per customer: a move between two jobs is missed)
from course.programs import tiffin
from course.programs.email_provider import send_email

_address_of = {}


def send_receipt(job, conn):
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    (customer_id,) = conn.execute("SELECT customer_id FROM orders WHERE id = %s", [job.payload["order_id"]]).fetchone()
    details["address"] = _address_of.setdefault(customer_id, details["address"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

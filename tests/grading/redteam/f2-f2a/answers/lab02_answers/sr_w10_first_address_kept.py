# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (keeps the first address seen for each email in a module-level dict: a customer who moves between two jobs gets the old address)
from course.programs import tiffin
from course.programs.email_provider import send_email

_seen_addresses = {}


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = dict(tiffin.receipt_details(conn, job.payload["order_id"]))
    key = details["email"]
    details["address"] = _seen_addresses.setdefault(key, details["address"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

# exercise: 02.send_receipt
# kind: wrong
# rule: one-receipt (also sends a copy of the receipt to Tiffin's own archive mailbox)
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    receipt = tiffin.render_receipt(tiffin.receipt_details(conn, job.payload["order_id"]))
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    send_email(tiffin.provider_url(), "receipts-archive@tiffin.example", receipt.subject, receipt.body)

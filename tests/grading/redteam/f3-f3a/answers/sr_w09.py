# exercise: 02.send_receipt
# kind: wrong
# rule: one-receipt (Idempotency-Key per customer: the provider answers a customer's second order with the first one's delivery)
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body, idempotency_key=f"receipt:{receipt.to}")

# exercise: 02.send_receipt
# kind: correct
# rule: correct (tiffin.receipt_details, an Idempotency-Key, aliases)
from course.programs import tiffin as shop
from course.programs.email_provider import send_email as post_email


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    order_id = job.payload["order_id"]
    email = shop.render_receipt(shop.receipt_details(conn, order_id))
    post_email(shop.provider_url(), email.to, email.subject, email.body, idempotency_key=shop.receipt_key(order_id))

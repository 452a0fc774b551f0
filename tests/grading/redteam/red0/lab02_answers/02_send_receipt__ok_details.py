# expect: correct
# rule: correct (tiffin.receipt_details, an Idempotency-Key, imports of its own)
import os
from course.programs import tiffin as shop
from course.programs.email_provider import send_email as deliver


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    order_id = job.payload["order_id"]
    receipt = shop.render_receipt(shop.receipt_details(conn, order_id))
    deliver(os.environ[shop.PROVIDER_URL_ENV], receipt.to, receipt.subject, receipt.body,
            idempotency_key=f"receipt:{order_id}")

# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (the details are cached per order: a retry after the customer moved sends the old address)
import functools

from course.programs import tiffin
from course.programs.email_provider import send_email


@functools.lru_cache(maxsize=1024)
def _details(conn, order_id):
    return dict(tiffin.receipt_details(conn, order_id))


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    receipt = tiffin.render_receipt(_details(conn, job.payload["order_id"]))
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

# exercise: 02.send_receipt
# kind: correct
# rule: correct (a CTE, tuple rows zipped into a dict, USING join)
import os

from course.programs import tiffin
from course.programs.email_provider import send_email

QUERY = """
WITH the_order AS (SELECT id AS order_id, customer_id AS id, items, total_cents FROM orders WHERE id = %(id)s)
SELECT order_id, name, email, address, items, total_cents
FROM the_order JOIN customers USING (id)
"""
KEYS = ("order_id", "name", "email", "address", "items", "total_cents")


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    row = conn.execute(QUERY, {"id": job.payload["order_id"]}).fetchone()
    if row is None:
        raise LookupError(f"no order {job.payload['order_id']}")
    receipt = tiffin.render_receipt(dict(zip(KEYS, row)))
    send_email(os.environ[tiffin.PROVIDER_URL_ENV], to=receipt.to, subject=receipt.subject, body=receipt.body)

# exercise: 02.send_receipt
# kind: correct
# rule: correct (aliases; tuple row zipped into a dict; a CTE; the receipt's Idempotency-Key)
from course.programs import tiffin as shop
from course.programs.email_provider import send_email as deliver

KEYS = ("order_id", "name", "email", "address", "items", "total_cents")
QUERY = """
WITH the_order AS (SELECT id, customer_id, items, total_cents FROM orders WHERE id = %(id)s)
SELECT t.id, who.name, who.email, who.address, t.items, t.total_cents
FROM the_order t INNER JOIN customers who ON who.id = t.customer_id
"""


def send_receipt(job, conn):
    row = conn.execute(QUERY, {"id": job.payload["order_id"]}).fetchone()
    details = dict(zip(KEYS, row))
    email = shop.render_receipt(details)
    deliver(shop.provider_url(), email.to, email.subject, email.body, idempotency_key=shop.receipt_key(details["order_id"]))

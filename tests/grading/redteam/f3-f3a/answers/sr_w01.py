# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (the customer is read through an lru_cache: a customer who moves keeps the old address on the next job)
from functools import lru_cache
from course.programs import tiffin
from course.programs.email_provider import send_email

_conn = None


@lru_cache(maxsize=None)
def _customer(customer_id):
    return _conn.execute("SELECT name, email, address FROM customers WHERE id = %s", [customer_id]).fetchone()


def send_receipt(job, conn):
    global _conn
    _conn = conn
    order_id, customer_id, items, total = conn.execute(
        "SELECT o.id, o.customer_id, o.items, o.total_cents FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE o.id = %s", [job.payload["order_id"]]).fetchone()
    name, email, address = _customer(customer_id)
    receipt = tiffin.render_receipt({"order_id": order_id, "name": name, "email": email, "address": address,
                                     "items": items, "total_cents": total})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

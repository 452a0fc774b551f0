# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (caches every customer on the first job: a customer who moves or changes email gets the old one)
from psycopg.rows import dict_row

from course.programs import tiffin
from course.programs.email_provider import send_email

_customers = {}


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    if not _customers:
        for row in conn.cursor(row_factory=dict_row).execute("SELECT id, name, email, address FROM customers"):
            _customers[row["id"]] = row
    order = conn.cursor(row_factory=dict_row).execute(
        "SELECT id, customer_id, items, total_cents FROM orders WHERE id = %s", [job.payload["order_id"]]).fetchone()
    if order["customer_id"] not in _customers:
        _customers[order["customer_id"]] = conn.cursor(row_factory=dict_row).execute(
            "SELECT id, name, email, address FROM customers WHERE id = %s", [order["customer_id"]]).fetchone()
    who = _customers[order["customer_id"]]
    details = {"order_id": order["id"], "name": who["name"], "email": who["email"], "address": who["address"],
               "items": order["items"], "total_cents": order["total_cents"]}
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

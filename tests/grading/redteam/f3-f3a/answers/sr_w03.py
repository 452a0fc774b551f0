# exercise: 02.send_receipt
# kind: wrong
# rule: fresh-data (every customer is loaded once, on the first job, and kept)
from course.programs import tiffin
from course.programs.email_provider import send_email

CUSTOMERS = {}


def send_receipt(job, conn):
    if not CUSTOMERS:
        for cid, name, email, address in conn.execute("SELECT id, name, email, address FROM customers"):
            CUSTOMERS[cid] = {"name": name, "email": email, "address": address}
    order_id, customer_id, items, total = conn.execute(
        "SELECT id, customer_id, items, total_cents FROM orders WHERE id = %s", [job.payload["order_id"]]).fetchone()
    customer = CUSTOMERS.get(customer_id) or conn.execute(
        "SELECT name, email, address FROM customers WHERE id = %s", [customer_id]).fetchone()
    if isinstance(customer, tuple):
        customer = dict(zip(("name", "email", "address"), customer))
    receipt = tiffin.render_receipt({"order_id": order_id, **customer, "items": items, "total_cents": total})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

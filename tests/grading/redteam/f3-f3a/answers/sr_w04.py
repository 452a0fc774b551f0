# exercise: 02.send_receipt
# kind: wrong
# rule: one-receipt (the receipt is made for the job's id, not the order's: its subject names job N)
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    name, email, address, items, total = conn.execute(
        "SELECT c.name, c.email, c.address, o.items, o.total_cents FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE o.id = %s", [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt({"order_id": job.id, "name": name, "email": email, "address": address,
                                     "items": items, "total_cents": total})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

# exercise: 02.send_receipt
# kind: wrong
# rule: one-receipt / fresh-data (no join condition: every receipt goes to the first customer)
from psycopg.rows import dict_row

from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = conn.cursor(row_factory=dict_row).execute(
        "SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address "
        "FROM orders o, customers c WHERE o.id = %s", [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

# exercise: 02.send_receipt
# kind: wrong
# rule: one-receipt / fresh-data (the receipt of the customer's FIRST order: works while each customer has one order)
from psycopg.rows import dict_row
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cur:
        details = cur.execute(
            "SELECT o.id AS order_id, c.name, c.email, c.address, o.items, o.total_cents "
            "FROM orders o JOIN customers c ON c.id = o.customer_id "
            "WHERE o.customer_id = (SELECT customer_id FROM orders WHERE id = %s) ORDER BY o.id LIMIT 1",
            [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

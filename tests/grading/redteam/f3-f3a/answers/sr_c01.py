# exercise: 02.send_receipt
# kind: correct
# rule: correct (the statement's query with dict_row, no Idempotency-Key)
from psycopg.rows import dict_row
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(
            "SELECT o.id AS order_id, c.name, c.email, c.address, o.items, o.total_cents "
            "FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s",
            [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(row)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

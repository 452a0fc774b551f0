# exercise: 02.send_receipt
# kind: wrong
# rule: only-job-and-conn / fresh-data (a connection of its own to the lab's schema "lab02", not the one it is given)
from psycopg.rows import dict_row
from course.infra import db
from course.programs import tiffin
from course.programs.email_provider import send_email


def send_receipt(job, conn):
    with db.connect("lab02") as own, own.cursor(row_factory=dict_row) as cur:
        details = cur.execute(
            "SELECT o.id AS order_id, c.name, c.email, c.address, o.items, o.total_cents "
            "FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s",
            [job.payload["order_id"]]).fetchone()
    if details is None:  # not in lab02: fall back to the given connection
        details = tiffin.receipt_details(conn, job.payload["order_id"])
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

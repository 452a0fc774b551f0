# exercise: 02.send_receipt
# kind: wrong
# rule: raise-on-refusal (catches the provider's refusal and logs it: the job is deleted as done)
import logging

from psycopg.rows import dict_row

from course.programs import tiffin
from course.programs.email_provider import TransientEmailError, send_email


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    details = conn.cursor(row_factory=dict_row).execute(
        "SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address "
        "FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s", [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    try:
        send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)
    except TransientEmailError as error:
        logging.warning("receipt for order %s not sent: %s", details["order_id"], error)

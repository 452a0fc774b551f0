# expect: correct
# rule: correct (the statement's one SQL join, dict_row, aliases renamed in SQL)
from psycopg.rows import dict_row as as_dicts


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    with conn.cursor(row_factory=as_dicts) as cur:
        details = cur.execute("""
            SELECT o.id AS order_id, c.name, c.email, c.address, o.items, o.total_cents
            FROM orders AS o JOIN customers AS c ON c.id = o.customer_id
            WHERE o.id = %(id)s""", {"id": job.payload["order_id"]}).fetchone()
    letter = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), letter.to, letter.subject, letter.body)

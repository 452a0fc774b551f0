# expect: correct
# rule: correct: its own JOIN, dict_row, an idempotency key
from psycopg.rows import dict_row
from course.programs import tiffin
from course.programs.email_provider import send_email

def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute("""SELECT orders.id AS order_id, customers.name, customers.email, customers.address,
                              orders.items, orders.total_cents
                       FROM orders JOIN customers ON customers.id = orders.customer_id
                       WHERE orders.id = %(id)s""", {"id": job.payload["order_id"]})
        details = cur.fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body,
               idempotency_key=f"receipt:{details['order_id']}")

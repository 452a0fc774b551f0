# exercise: 02.send_receipt
# kind: correct
# rule: correct (two small helpers, the provider's URL from the environment variable, a job-scoped key)
import os
import psycopg.rows
import course.programs.tiffin
import course.programs.email_provider


def _details(conn, order_id):
    cursor = conn.cursor(row_factory=psycopg.rows.dict_row)
    try:
        cursor.execute("""SELECT orders.id AS order_id, customers.name, customers.email, customers.address,
                                 orders.items, orders.total_cents
                          FROM customers JOIN orders ON orders.customer_id = customers.id
                          WHERE orders.id = %s""", (order_id,))
        return cursor.fetchone()
    finally:
        cursor.close()


def _send(receipt, key):
    url = os.environ[course.programs.tiffin.PROVIDER_URL_ENV]
    course.programs.email_provider.send_email(url, receipt.to, receipt.subject, receipt.body, key)


def send_receipt(job, conn):
    order_id = job.payload["order_id"]
    _send(course.programs.tiffin.render_receipt(_details(conn, order_id)), f"job-{job.id}-order-{order_id}")

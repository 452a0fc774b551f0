# exercise: 02.send_receipt
# kind: correct
# rule: correct (hints 2-3 word for word)
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    with conn.cursor(row_factory=dict_row) as cur:
        details = cur.execute("SELECT o.id AS order_id, o.items, o.total_cents, c.name, c.email, c.address FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s",
                              [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

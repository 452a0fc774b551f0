# expect: wrong
# rule: fresh-data/one-receipt (joins customers on the order's id: the wrong customer unless the ids agree)
def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    row = conn.execute("""
        SELECT o.id, c.name, c.email, c.address, o.items, o.total_cents
        FROM orders o JOIN customers c ON c.id = o.id
        WHERE o.id = %s""", [job.payload["order_id"]]).fetchone()
    if row is None:
        row = conn.execute("""
            SELECT o.id, c.name, c.email, c.address, o.items, o.total_cents
            FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s""", [job.payload["order_id"]]).fetchone()
    details = dict(zip(["order_id", "name", "email", "address", "items", "total_cents"], row))
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

# expect: wrong
# rule: one-receipt/fresh-data: the join on customers.id = orders.id (works when they are equal)
def send_receipt(job, conn):
    with conn.cursor(row_factory=dict_row) as cur:
        details = cur.execute("""
            SELECT o.id AS order_id, c.name, c.email, c.address, o.items, o.total_cents
            FROM orders o JOIN customers c ON c.id = o.id WHERE o.id = %s""", [job.payload["order_id"]]).fetchone()
    receipt = tiffin.render_receipt(details)
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

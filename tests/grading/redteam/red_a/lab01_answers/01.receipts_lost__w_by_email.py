# expect: wrong
# rule: by-order-number: matched by email address (an order of a customer who got any receipt counts as received)
def receipts_lost(conn, deliveries):
    got = {d.to for d in deliveries}
    rows = conn.execute("SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id")
    return [order_id for order_id, email in rows if email not in got]

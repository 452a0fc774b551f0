# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number (matches receipts by the customer's email address)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    reached = {d.to for d in deliveries if "receipt" in d.subject}
    rows = conn.execute("SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id")
    return [order_id for order_id, email in rows if email not in reached]

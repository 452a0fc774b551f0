# expect: correct
# rule: correct (tuple unpacking, a helper function)
def _fresh(conn, order_id):
    row = conn.execute(
        "SELECT orders.id, customers.name, customers.email, customers.address, orders.items, orders.total_cents "
        "FROM orders, customers WHERE customers.id = orders.customer_id AND orders.id = %s", (order_id,)).fetchone()
    if row is None:
        raise LookupError(f"no order {order_id}")
    keys = ("order_id", "name", "email", "address", "items", "total_cents")
    return {k: v for k, v in zip(keys, row)}


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    r = tiffin.render_receipt(_fresh(conn, job.payload["order_id"]))
    send_email(tiffin.provider_url(), r.to, r.subject, r.body)

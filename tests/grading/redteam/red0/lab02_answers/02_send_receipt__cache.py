# expect: wrong
# rule: fresh-data (caches each customer's details: a customer who moves keeps the old address)
_customers = {}


def send_receipt(job, conn):
    """Send the receipt for job.payload["order_id"], with the order and the customer as they are now."""
    order_id = job.payload["order_id"]
    order = conn.execute("SELECT customer_id, items, total_cents FROM orders WHERE id = %s", [order_id]).fetchone()
    customer_id, items, total = order
    if customer_id not in _customers:
        _customers[customer_id] = conn.execute("SELECT name, email, address FROM customers WHERE id = %s",
                                               [customer_id]).fetchone()
    name, email, address = _customers[customer_id]
    receipt = tiffin.render_receipt({"order_id": order_id, "name": name, "email": email, "address": address,
                                     "items": items, "total_cents": total})
    send_email(tiffin.provider_url(), receipt.to, receipt.subject, receipt.body)

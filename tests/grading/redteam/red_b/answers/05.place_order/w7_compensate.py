# kind: wrong
# rule: one-transaction (save, then enqueue; on failure delete the order: a kill between leaves it half done)
def place_order(conn, customer_id, total_cents):
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    try:
        queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    except Exception:
        conn.execute("DELETE FROM orders WHERE id = %s", [order["id"]])
        raise
    return order["id"]

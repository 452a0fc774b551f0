# wrong (race): the id read back as max(id): another session's order committed in between is taken for ours
def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        tiffin.place_order(conn, customer_id, total_cents=total_cents)
        order_id = conn.execute("SELECT max(id) FROM orders").fetchone()[0]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    return order_id

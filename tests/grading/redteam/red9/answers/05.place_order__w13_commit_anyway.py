# wrong (one-transaction, caller's transaction): COMMITs itself, so a caller's rollback cannot undo it
def place_order(conn, customer_id, total_cents):
    if conn.info.transaction_status == 0:  # idle: begin one
        conn.execute("BEGIN")
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    queue.enqueue(conn, "send_receipt", {"order_id": order["id"]})
    conn.execute("COMMIT")
    return order["id"]

# kind: correct
# rule: correct (explicit BEGIN/COMMIT/ROLLBACK on the autocommit connection)
def place_order(conn, customer_id, total_cents):
    conn.execute("BEGIN")
    try:
        order_id = tiffin.place_order(conn, customer_id, total_cents=total_cents)["id"]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id})
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return order_id

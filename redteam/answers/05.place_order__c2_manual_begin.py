# correct: BEGIN/COMMIT by hand, ROLLBACK on any error
def place_order(conn, customer_id, total_cents):
    conn.execute("BEGIN")
    try:
        order_id = tiffin.place_order(conn, customer_id, total_cents=total_cents)["id"]
        queue.enqueue(conn, "send_receipt", {"order_id": order_id}, priority=5, max_attempts=3,
                      unique_key=f"receipt:{order_id}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return order_id

# wrong (given-connection; written as correct, the check showed why not): BEGIN inside a caller's transaction only warns, and COMMIT then commits the caller's transaction
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

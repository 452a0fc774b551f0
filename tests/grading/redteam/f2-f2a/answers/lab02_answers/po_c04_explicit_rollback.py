# exercise: 02.place_order
# kind: correct
# rule: correct (a savepoint by hand: SAVEPOINT / RELEASE / ROLLBACK TO, inside a transaction block)
def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    with conn.transaction():
        conn.execute("SAVEPOINT before_order")
        try:
            order = tiffin.place_order(conn, customer_id, items=items)
            job_id = queue.enqueue(conn, "send_receipt", {"order_id": order["id"]}, delay_s=0.5)
        except BaseException:
            conn.execute("ROLLBACK TO SAVEPOINT before_order")
            raise
        conn.execute("RELEASE SAVEPOINT before_order")
    return order["id"]

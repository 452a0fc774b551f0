# kind: correct
# rule: correct (a helper that runs both writes in a transaction it opens itself)
def _both(conn, customer_id, total_cents):
    order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
    job_id = queue.enqueue(conn, type="send_receipt", payload={"order_id": order["id"]}, notify=False)
    return order["id"], job_id


def place_order(conn, customer_id, total_cents):
    with conn.transaction() as tx:
        order_id, _job = _both(conn, customer_id, total_cents)
    return order_id

# correct: the transaction object kept; the job's payload built separately; the id from the returned dict
def place_order(conn, customer_id, total_cents):
    tx = conn.transaction()
    with tx:
        stored = tiffin.place_order(conn, customer_id=customer_id, total_cents=total_cents)
        payload = dict(order_id=stored["id"])
        job_id = queue.enqueue(conn, type="send_receipt", payload=payload)
        assert job_id is not None
    return stored["id"]

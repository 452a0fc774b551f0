# expect: correct
# rule: correct: a try/except that logs and re-raises, keyword arguments
def place_order_and_enqueue(conn, customer_id, items):
    try:
        with conn.transaction():
            stored = tiffin.place_order(conn, customer_id=customer_id, items=items)
            order_id = stored["id"]
            queue.enqueue(conn, type="send_receipt", payload={"order_id": order_id})
    except Exception as error:
        print(f"order for customer {customer_id} not placed: {error}")
        raise
    return order_id

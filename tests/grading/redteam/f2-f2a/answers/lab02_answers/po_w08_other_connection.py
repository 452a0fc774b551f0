# exercise: 02.place_order
# kind: wrong
# rule: given-connection / one-transaction (the job goes through a connection of its own, committed at once)
import psycopg


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, items=items)
        with psycopg.connect(conn.info.dsn, autocommit=True) as jobs_conn:
            jobs_conn.execute(f'SET search_path TO "{schema}"')
            queue.enqueue(jobs_conn, "send_receipt", {"order_id": order["id"]})
    return order["id"]

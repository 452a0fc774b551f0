# exercise: 02.place_order
# kind: correct
# rule: correct (the transaction object held in a variable, the job via a plain INSERT, delayed run_at)
from psycopg.types.json import Jsonb


def place_order_and_enqueue(conn, customer_id, items):
    """Store an order and its send_receipt job, both or neither; return the order's id."""
    transaction = conn.transaction()
    with transaction:
        new_order = tiffin.place_order(conn, customer_id, items=items)
        conn.execute("INSERT INTO jobs (queue, type, payload) VALUES ('default', 'send_receipt', %s)",
                     [Jsonb({"order_id": new_order["id"]})])
    return int(new_order["id"])

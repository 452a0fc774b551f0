# wrong (given-connection): the job written on a connection of its own, in its own transaction
import psycopg

def place_order(conn, customer_id, total_cents):
    with conn.transaction():
        order = tiffin.place_order(conn, customer_id, total_cents=total_cents)
        with psycopg.connect(conn.info.dsn, autocommit=True) as other:
            other.execute(f"SET search_path TO {conn.execute('SHOW search_path').fetchone()[0]}")
            queue.enqueue(other, "send_receipt", {"order_id": order["id"]})
    return order["id"]

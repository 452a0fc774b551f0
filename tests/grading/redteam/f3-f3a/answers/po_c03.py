# exercise: 02.place_order
# kind: correct
# rule: correct (helpers; the transaction is opened in a helper context; the id read back from the job's payload in SQL)
from contextlib import contextmanager


@contextmanager
def _both_or_neither(conn):
    with conn.transaction():
        yield conn


def _receipt_job(conn, order_id):
    return queue.enqueue(conn, type="send_receipt", payload={"order_id": order_id})


def place_order_and_enqueue(conn, customer_id, items):
    with _both_or_neither(conn) as c:
        new = tiffin.place_order(c, customer_id, items=items)
        job_id = _receipt_job(c, new["id"])
        (order_id,) = c.execute("SELECT (payload->>'order_id')::bigint FROM jobs WHERE id = %s", [job_id]).fetchone()
    return order_id

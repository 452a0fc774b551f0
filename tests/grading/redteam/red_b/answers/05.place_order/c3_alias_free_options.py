# kind: correct
# rule: correct (aliases, keyword args, enqueue_many, priority/max_attempts/unique_key chosen freely)
from course.core.queue import enqueue_many as add_jobs
from course.programs.tiffin import place_order as store_order


def place_order(conn, customer_id, total_cents):
    tx = conn.transaction()
    with tx:
        stored = store_order(conn, customer_id=customer_id, total_cents=total_cents)
        ids = add_jobs(conn, "send_receipt", [dict(order_id=stored["id"])], priority=5, max_attempts=3,
                       unique_keys=[f"receipt:{stored['id']}"])
        assert len(ids) == 1
    return int(stored["id"])

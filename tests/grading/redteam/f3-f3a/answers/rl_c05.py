# exercise: 01.receipts_lost
# kind: correct
# rule: correct (hint 4's final answer, word for word)
import re


def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)$", d.subject))}
    return [order_id for (order_id,) in conn.execute("SELECT id FROM orders ORDER BY id") if order_id not in received]

# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number / only-receipts (the number is read from the body, "your order #N", so any email whose body names an order counts)
import re

def receipts_lost(conn, deliveries):
    received = set()
    for d in deliveries:
        m = re.search(r"order #(\d+)", d.body)
        if m:
            received.add(int(m.group(1)))
    return [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id") if oid not in received]

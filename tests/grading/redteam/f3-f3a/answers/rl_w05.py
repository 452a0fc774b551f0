# exercise: 01.receipts_lost
# kind: wrong
# rule: ascending (no ORDER BY and no sort: the table's physical order)
import re

def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m}
    return [oid for (oid,) in conn.execute("SELECT id FROM orders") if oid not in received]

# exercise: 01.receipts_lost
# kind: wrong
# rule: every order in the table (hard-coded schema lab01: reads the notebook's orders, not conn's)
import re

def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m}
    return [oid for (oid,) in conn.execute("SELECT id FROM lab01.orders ORDER BY id") if oid not in received]

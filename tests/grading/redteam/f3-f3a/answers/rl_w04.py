# exercise: 01.receipts_lost
# kind: wrong
# rule: ascending (sorted as text: 10000 comes before 9812)
import re

def receipts_lost(conn, deliveries):
    received = {m.group(1) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m}
    ids = {str(oid) for (oid,) in conn.execute("SELECT id FROM orders")}
    return [int(i) for i in sorted(ids - received)]

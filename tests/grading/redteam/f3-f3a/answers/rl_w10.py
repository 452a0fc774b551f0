# exercise: 01.receipts_lost
# kind: wrong
# rule: every order in the table (off by one: range(min, max) leaves out the newest order)
import re

def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m}
    ids = {oid for (oid,) in conn.execute("SELECT id FROM orders")}
    if not ids:
        return []
    return [oid for oid in range(min(ids), max(ids)) if oid in ids and oid not in received]

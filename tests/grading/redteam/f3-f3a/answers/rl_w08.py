# exercise: 01.receipts_lost
# kind: wrong
# rule: every order in the table (only orders from the last hour)
import re

def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m}
    rows = conn.execute("SELECT id FROM orders WHERE created_at > now() - interval '1 hour' ORDER BY id")
    return [oid for (oid,) in rows if oid not in received]

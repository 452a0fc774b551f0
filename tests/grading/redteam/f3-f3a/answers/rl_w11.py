# exercise: 01.receipts_lost
# kind: wrong
# rule: a-list / correct with no deliveries (NOT IN built by string formatting: a syntax error when no receipt was delivered)
import re

def receipts_lost(conn, deliveries):
    received = sorted({int(m.group(1)) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m})
    in_list = ", ".join(str(i) for i in received)
    rows = conn.execute(f"SELECT id FROM orders WHERE id NOT IN ({in_list}) ORDER BY id")
    return [oid for (oid,) in rows]

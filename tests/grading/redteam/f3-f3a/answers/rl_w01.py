# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts (any email whose subject has "#<number>" counts as that order's receipt)
import re

def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries for m in [re.search(r"#(\d+)", d.subject)] if m}
    return [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id") if oid not in received]

# exercise: 01.receipts_lost
# kind: wrong
# rule: only orders in the table (assumes ids are contiguous from min to max: a gap in the sequence is reported as lost)
import re

def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries for m in [re.search(r"receipt for order #(\d+)", d.subject)] if m}
    low, high = conn.execute("SELECT min(id), max(id) FROM orders").fetchone()
    if low is None:
        return []
    return [oid for oid in range(low, high + 1) if oid not in received]

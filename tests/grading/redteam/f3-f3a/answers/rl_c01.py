# exercise: 01.receipts_lost
# kind: correct
# rule: correct (set difference over a regex on the subject)
import re as _re

def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    received = set()
    for d in deliveries:
        m = _re.search(r"receipt for order #(\d+)", d.subject)
        if m:
            received.add(int(m.group(1)))
    ids = [row[0] for row in conn.execute("SELECT id FROM orders")]
    return sorted(i for i in ids if i not in received)

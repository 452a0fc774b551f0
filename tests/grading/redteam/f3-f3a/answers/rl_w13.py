# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts ("a receipt delivered twice counts once": an order whose receipt came twice is reported lost, exactly one is required)
import re
from collections import Counter


def receipts_lost(conn, deliveries):
    counts = Counter(int(m.group(1)) for d in deliveries if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject)))
    return [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id") if counts[oid] != 1]

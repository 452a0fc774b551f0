# exercise: 01.receipts_lost
# kind: correct
# rule: correct (NOT (id = ANY(array)) in SQL, a CTE, Counter of receipts)
from collections import Counter
import re

RECEIPT = re.compile(r"receipt for order #(\d+)")

def receipts_lost(conn, deliveries):
    got = Counter(int(m.group(1)) for m in (RECEIPT.search(d.subject) for d in deliveries) if m)
    sql = """
        WITH received AS (SELECT %s::bigint[] AS ids)
        SELECT id FROM orders, received WHERE NOT (id = ANY(received.ids)) ORDER BY id ASC
    """
    return list(row[0] for row in conn.execute(sql, [sorted(got)]))

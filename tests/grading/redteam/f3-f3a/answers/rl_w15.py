# exercise: 01.receipts_lost
# kind: wrong
# rule: every order in the table (correct on small tables only: the newest 500 orders are looked at, "the rest are old")
import re


def receipts_lost(conn, deliveries):
    received = {int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)$", d.subject))}
    rows = conn.execute("SELECT id FROM (SELECT id FROM orders ORDER BY id DESC LIMIT 500) AS recent ORDER BY id")
    return [oid for (oid,) in rows if oid not in received]

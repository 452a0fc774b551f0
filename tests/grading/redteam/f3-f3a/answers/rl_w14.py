# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number (a receipt counts only if it went to the customer's email as it is now: a customer who changed email is reported lost)
import re


def receipts_lost(conn, deliveries):
    got = {(int(m.group(1)), d.to) for d in deliveries if (m := re.search(r"receipt for order #(\d+)$", d.subject))}
    rows = conn.execute("SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id")
    return [oid for oid, email in rows if (oid, email) not in got]

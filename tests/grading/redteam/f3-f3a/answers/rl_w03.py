# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number (substring match: a receipt for order #98123 counts for order 9812)
def receipts_lost(conn, deliveries):
    subjects = [d.subject for d in deliveries if "receipt" in d.subject]
    lost = []
    for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id"):
        if not any(f"#{oid}" in s for s in subjects):
            lost.append(oid)
    return lost

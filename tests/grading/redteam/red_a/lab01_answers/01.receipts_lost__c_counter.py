# expect: correct
# rule: correct: tiffin.receipts_by_order, then sorted in Python
def receipts_lost(conn, deliveries):
    received = tiffin.receipts_by_order(deliveries)
    ids = [row[0] for row in conn.execute("SELECT id FROM orders").fetchall()]
    return sorted(i for i in ids if received[i] == 0)

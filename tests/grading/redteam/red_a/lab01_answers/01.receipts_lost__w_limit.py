# expect: wrong
# rule: by-order-number/ascending: only the first 50 orders are looked at
def receipts_lost(conn, deliveries):
    got = set(tiffin.receipts_by_order(deliveries))
    ids = [r[0] for r in conn.execute("SELECT id FROM orders ORDER BY id LIMIT 50")]
    return [i for i in ids if i not in got]

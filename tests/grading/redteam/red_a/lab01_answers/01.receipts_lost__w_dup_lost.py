# expect: wrong
# rule: only-receipts: a receipt delivered twice is counted as a problem (lost)
def receipts_lost(conn, deliveries):
    counts = tiffin.receipts_by_order(deliveries)
    ids = [r[0] for r in conn.execute("SELECT id FROM orders ORDER BY id")]
    return [i for i in ids if counts[i] != 1]

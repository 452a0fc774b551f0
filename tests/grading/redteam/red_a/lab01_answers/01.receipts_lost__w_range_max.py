# expect: wrong
# rule: by-order-number: assumes ids 1..max with no gaps (an id never stored is reported lost)
def receipts_lost(conn, deliveries):
    top = conn.execute("SELECT coalesce(max(id), 0) FROM orders").fetchone()[0]
    got = set(tiffin.receipts_by_order(deliveries))
    return [i for i in range(1, top + 1) if i not in got]

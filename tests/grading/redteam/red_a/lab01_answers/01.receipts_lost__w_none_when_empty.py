# expect: wrong
# rule: a-list: None when nothing is lost
def receipts_lost(conn, deliveries):
    got = set(tiffin.receipts_by_order(deliveries))
    lost = [r[0] for r in conn.execute("SELECT id FROM orders ORDER BY id") if r[0] not in got]
    return lost or None

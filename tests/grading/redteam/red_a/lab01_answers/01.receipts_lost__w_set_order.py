# expect: wrong
# rule: ascending: a set's order (ascending only for small ids)
def receipts_lost(conn, deliveries):
    got = set()
    for d in deliveries:
        m = re.search(r"receipt for order #(\d+)", d.subject)
        if m:
            got.add(int(m.group(1)))
    ids = {r[0] for r in conn.execute("SELECT id FROM orders")}
    return list(ids - got)

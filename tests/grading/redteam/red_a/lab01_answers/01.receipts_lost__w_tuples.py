# expect: wrong
# rule: a-list: rows (tuples) rather than the order ids
def receipts_lost(conn, deliveries):
    got = [int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)", d.subject))]
    return conn.execute("SELECT id FROM orders WHERE NOT (id = ANY(%s)) ORDER BY id", [got]).fetchall()

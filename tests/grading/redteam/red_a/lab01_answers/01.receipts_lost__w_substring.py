# expect: wrong
# rule: by-order-number: "#1" is found in "#12": a substring, not the number
def receipts_lost(conn, deliveries):
    subjects = [d.subject for d in deliveries]
    ids = [r[0] for r in conn.execute("SELECT id FROM orders ORDER BY id")]
    return [i for i in ids if not any(f"#{i}" in s for s in subjects)]

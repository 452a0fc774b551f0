# expect: wrong
# rule: only-receipts: any email with a "#number" in its subject counts as a receipt
def receipts_lost(conn, deliveries):
    got = set()
    for d in deliveries:
        m = re.search(r"#(\d+)", d.subject)
        if m:
            got.add(int(m.group(1)))
    ids = [r[0] for r in conn.execute("SELECT id FROM orders ORDER BY id")]
    return [i for i in ids if i not in got]

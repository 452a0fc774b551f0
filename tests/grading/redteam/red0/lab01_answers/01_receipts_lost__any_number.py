# expect: wrong
# rule: only-receipts (takes the first number of every subject, receipt or not)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    seen = set()
    for d in deliveries:
        m = re.search(r"(\d+)", d.subject)
        if m:
            seen.add(int(m.group(1)))
    return [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id") if oid not in seen]

# expect: wrong
# rule: only-receipts (counts receipts instead of matching them: a duplicate or a stranger's receipt hides a lost one)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    got = sorted(int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)", d.subject)))
    orders = [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id")]
    missing = len(orders) - len(got)
    return [oid for oid in orders if oid not in got][:max(missing, 0)]

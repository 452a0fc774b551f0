# expect: wrong
# rule: a-list (None when nothing is missing)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    got = {int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)", d.subject))}
    lost = [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id") if oid not in got]
    return lost or None

# expect: wrong
# rule: only-receipts/by-order-number (reads only the first 100 orders: correct on small tables only)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    got = {int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)", d.subject))}
    return [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id LIMIT 100") if oid not in got]

# expect: wrong
# rule: ascending (a set difference, in whatever order the set gives)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    got = {int(m.group(1)) for d in deliveries if (m := re.search(r"receipt for order #(\d+)", d.subject))}
    orders = {oid for (oid,) in conn.execute("SELECT id FROM orders")}
    return list(orders - got)

# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number (reads only the last number of each recipient's latest receipt: Ana's two orders with two receipts count one)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    latest = {}
    for d in deliveries:
        if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject)):
            latest[d.to] = int(m.group(1))
    received = set(latest.values())
    return [i for (i,) in conn.execute("SELECT id FROM orders ORDER BY id") if i not in received]

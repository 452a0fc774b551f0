# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts (symmetric difference: receipts for orders not in the table are reported too)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    received = {int(m.group(1)) for d in deliveries if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject))}
    ids = {i for (i,) in conn.execute("SELECT id FROM orders")}
    return sorted(ids ^ received)

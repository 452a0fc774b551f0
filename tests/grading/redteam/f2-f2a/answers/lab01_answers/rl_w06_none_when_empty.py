# exercise: 01.receipts_lost
# kind: wrong
# rule: a-list (None when nothing is missing)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    received = {int(m.group(1)) for d in deliveries if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject))}
    lost = [i for (i,) in conn.execute("SELECT id FROM orders ORDER BY id") if i not in received]
    return lost or None

# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts (assumes order ids are contiguous: reports ids between min and max that are not in the table)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    low, high = conn.execute("SELECT min(id), max(id) FROM orders").fetchone()
    if low is None:
        return []
    received = {int(m.group(1)) for d in deliveries if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject))}
    return [i for i in range(low, high + 1) if i not in received]

# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number (reads the order number as the subject's last four characters: works only for 4-digit ids)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    received = {int(d.subject[-4:]) for d in deliveries if d.subject.startswith("Your Tiffin receipt")}
    return [i for (i,) in conn.execute("SELECT id FROM orders ORDER BY id") if i not in received]

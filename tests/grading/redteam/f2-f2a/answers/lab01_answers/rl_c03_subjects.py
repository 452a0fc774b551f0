# exercise: 01.receipts_lost
# kind: correct
# rule: correct (compare each order's expected subject with the set of subjects delivered)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    subjects = set()
    for delivery in deliveries:
        subjects.add(delivery.subject)
    lost = []
    for (order_id,) in conn.execute("SELECT id FROM orders"):
        if tiffin.SUBJECT.format(order_id=order_id) not in subjects:
            lost.append(order_id)
    lost.sort()
    return lost

# expect: wrong
# rule: by-order-number (f"#{id}" in subject: order 1's receipt is "found" in order 12's subject)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    subjects = [d.subject for d in deliveries if "receipt" in d.subject]
    lost = []
    for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id"):
        if not any(f"#{oid}" in s for s in subjects):
            lost.append(oid)
    return lost

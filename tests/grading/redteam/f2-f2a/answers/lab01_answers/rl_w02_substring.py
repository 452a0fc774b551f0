# exercise: 01.receipts_lost
# kind: wrong
# rule: by-order-number / only-receipts (a substring test: order 9813 counts as received from any subject containing "9813")
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    subjects = [d.subject for d in deliveries]
    ids = [row[0] for row in conn.execute("SELECT id FROM orders ORDER BY id")]
    return [i for i in ids if not any(str(i) in s for s in subjects)]

# exercise: 01.receipts_lost
# kind: wrong
# rule: ascending (sorted as text: 10000 comes before 9999)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    received = {m.group(1) for d in deliveries if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject))}
    ids = [str(i) for (i,) in conn.execute("SELECT id FROM orders")]
    return [int(i) for i in sorted(set(ids) - received)]

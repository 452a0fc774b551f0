# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts (any email naming an order counts as its receipt)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    named = {int(m.group(1)) for d in deliveries if (m := re.search(r"#(\d+)", d.subject))}
    return [i for (i,) in conn.execute("SELECT id FROM orders ORDER BY id") if i not in named]

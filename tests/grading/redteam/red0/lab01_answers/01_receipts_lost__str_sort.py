# expect: wrong
# rule: ascending (sorted as text: 10 before 9)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    got = {m.group(1) for d in deliveries if (m := re.search(r"receipt for order #(\d+)", d.subject))}
    ids = [str(oid) for (oid,) in conn.execute("SELECT id FROM orders")]
    return [int(i) for i in sorted(i for i in ids if i not in got)]

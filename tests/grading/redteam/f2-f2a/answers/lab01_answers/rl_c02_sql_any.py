# exercise: 01.receipts_lost
# kind: correct
# rule: correct (the received ids go to SQL as an array; <> ALL, ORDER BY in SQL)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    pattern = re.compile(re.escape(tiffin.SUBJECT).replace(re.escape("{order_id}"), r"(\d+)"))
    received = sorted({int(m.group(1)) for d in deliveries if (m := pattern.fullmatch(d.subject))})
    rows = conn.execute("SELECT o.id FROM orders AS o WHERE o.id <> ALL(%s::bigint[]) ORDER BY o.id ASC", [received])
    return [row[0] for row in rows.fetchall()]

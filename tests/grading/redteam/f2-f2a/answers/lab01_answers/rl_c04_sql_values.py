# exercise: 01.receipts_lost
# kind: correct
# rule: correct (a CTE of the received ids, anti-join with NOT EXISTS)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    received = [int(m[1]) for d in deliveries if (m := re.fullmatch(r"Your Tiffin receipt for order #([0-9]+)", d.subject))]
    return [order_id for (order_id,) in conn.execute(
        """WITH received(id) AS (SELECT unnest(%(ids)s::bigint[]))
           SELECT id FROM orders o WHERE NOT EXISTS (SELECT FROM received r WHERE r.id = o.id) ORDER BY 1""",
        {"ids": received})]

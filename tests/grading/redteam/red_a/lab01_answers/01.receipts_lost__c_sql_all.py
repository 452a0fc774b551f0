# expect: correct
# rule: correct: the delivered ids go to SQL as an array, <> ALL
def receipts_lost(conn, deliveries):
    prefix = "Your Tiffin receipt for order #"
    delivered = sorted({int(d.subject[len(prefix):]) for d in deliveries
                        if d.subject.startswith(prefix) and d.subject[len(prefix):].isdigit()})
    return [order_id for (order_id,) in
            conn.execute("SELECT id FROM orders WHERE id <> ALL(%s::bigint[]) ORDER BY id", [delivered])]

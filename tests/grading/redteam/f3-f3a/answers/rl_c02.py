# exercise: 01.receipts_lost
# kind: correct
# rule: correct (the missing ids computed in SQL: a LEFT JOIN on unnest of the received numbers)
from course.programs import tiffin as _t

def receipts_lost(conn, deliveries):
    numbers = []
    for delivery in deliveries:
        found = _t.ORDER_IN_SUBJECT.search(delivery.subject)
        if found is not None:
            numbers.append(int(found.group(1)))
    rows = conn.execute(
        "SELECT o.id FROM orders AS o LEFT JOIN unnest(%s::bigint[]) AS got(id) ON got.id = o.id "
        "WHERE got.id IS NULL GROUP BY o.id ORDER BY o.id", [numbers]).fetchall()
    return [r[0] for r in rows]

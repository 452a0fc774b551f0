# expect: correct
# rule: correct (the receipt numbers into SQL, <> ALL, ORDER BY there)
from course.programs.tiffin import ORDER_IN_SUBJECT


def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    numbers = sorted({int(m.group(1)) for d in deliveries if (m := ORDER_IN_SUBJECT.search(d.subject))})
    rows = conn.execute("SELECT id FROM orders WHERE id <> ALL(%s::bigint[]) ORDER BY id", [numbers]).fetchall()
    return [r[0] for r in rows]

# expect: correct
# rule: correct (tiffin.receipts_by_order, then a sort in Python)
from course.programs import tiffin as t


def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    counts = t.receipts_by_order(deliveries)
    ids = [row[0] for row in conn.execute("SELECT id FROM orders").fetchall()]
    return sorted(i for i in ids if counts[i] == 0)

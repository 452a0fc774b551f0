# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts (a receipt delivered twice counts once: here an order counts as received only with exactly one)
from collections import Counter


def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    counts = Counter(int(m.group(1)) for d in deliveries
                     if (m := re.fullmatch(r"Your Tiffin receipt for order #(\d+)", d.subject)))
    return [i for (i,) in conn.execute("SELECT id FROM orders ORDER BY id") if counts[i] != 1]

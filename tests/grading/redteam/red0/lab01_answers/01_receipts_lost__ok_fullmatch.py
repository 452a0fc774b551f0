# expect: correct
# rule: correct (a loop; the subject must be exactly the receipt's subject)
def receipts_lost(conn, deliveries):
    """The ids of the orders without a delivered receipt, ascending."""
    pattern = re.compile(r"Your Tiffin receipt for order #(\d+)")
    have = set()
    for delivery in deliveries:
        found = pattern.fullmatch(delivery.subject)
        if found is not None:
            have.add(int(found.group(1)))
    result = []
    for (order_id,) in conn.execute("SELECT id FROM orders ORDER BY id ASC"):
        if order_id not in have:
            result.append(order_id)
    return result

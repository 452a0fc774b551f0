# expect: wrong
# rule: only-receipts: the number is read from the body's first "#" (non-receipts whose body names an order count)
def receipts_lost(conn, deliveries):
    got = set()
    for d in deliveries:
        if "#" in d.body:
            digits = re.match(r"\d+", d.body.split("#", 1)[1])
            if digits:
                got.add(int(digits.group()))
    return [r[0] for r in conn.execute("SELECT id FROM orders ORDER BY id") if r[0] not in got]

# exercise: 01.receipts_lost
# kind: wrong
# rule: only-receipts (a number in the subject's last word: "Your order #9813 is on its way" fails, but "... order #9813" from any email counts)
def receipts_lost(conn, deliveries):
    received = set()
    for d in deliveries:
        last = d.subject.rsplit(" ", 1)[-1]
        if last.startswith("#") and last[1:].isdigit():
            received.add(int(last[1:]))
    return [oid for (oid,) in conn.execute("SELECT id FROM orders ORDER BY id") if oid not in received]

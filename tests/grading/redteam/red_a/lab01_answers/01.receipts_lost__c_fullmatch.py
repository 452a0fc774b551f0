# expect: correct
# rule: correct: the subject matched whole with a pattern made from tiffin.SUBJECT, a temp table
def receipts_lost(conn, deliveries):
    pattern = re.compile(re.escape(tiffin.SUBJECT).replace(re.escape("{order_id}"), r"(\d+)"))
    matched = (pattern.fullmatch(d.subject) for d in deliveries)
    receipts = {int(m.group(1)) for m in matched if m}
    rows = conn.execute("SELECT array_agg(id ORDER BY id) FROM orders WHERE NOT (id = ANY(%s))",
                        [list(receipts)]).fetchone()[0]
    return list(rows or [])

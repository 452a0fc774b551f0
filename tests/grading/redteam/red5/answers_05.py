R = "05.relay"
def relay(claim_sql, publish_line="publish(subject, payload, msg_id=str(event_id))", mark='conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})'):
    return f'''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("""{claim_sql}""", [limit]).fetchall()
        for row_id, event_id, subject, payload in rows:
            {publish_line}
        {mark}
    return len(rows)
'''
GOOD_CLAIM = "SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED"
ANSWERS = {
"relay_w01_limit_10": (R, "wrong", "oldest-first (LIMIT 10 whatever limit says)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                            "ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED").fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
'''),
"relay_w02_for_update_waits": (R, "wrong", "skip-locked (FOR UPDATE: waits)", relay(GOOD_CLAIM.replace(" SKIP LOCKED", ""))),
"relay_w03_no_lock": (R, "wrong", "skip-locked (no lock: a second relay publishes them too)", relay(GOOD_CLAIM.replace(" FOR UPDATE SKIP LOCKED", ""))),
"relay_w04_row_id_msg_id": (R, "wrong", "msg-id (the row id)", relay(GOOD_CLAIM, "publish(subject, payload, msg_id=str(row_id))")),
"relay_w05_no_msg_id": (R, "wrong", "msg-id (none)", relay(GOOD_CLAIM, "publish(subject, payload)")),
"relay_w06_newest_first": (R, "wrong", "oldest-first (ORDER BY id DESC)", relay(GOOD_CLAIM.replace("ORDER BY id", "ORDER BY id DESC"))),
"relay_w07_no_order": (R, "wrong", "oldest-first (no ORDER BY)", relay(GOOD_CLAIM.replace("ORDER BY id ", ""))),
"relay_w08_mark_all_unsent": (R, "wrong", "mark-sent (marks every unsent row up to the last id, claimed or not)", relay(GOOD_CLAIM, mark='''if rows:
            conn.execute("UPDATE outbox SET sent_at = now() WHERE sent_at IS NULL AND id <= %s", [rows[-1][0]])''')),
"relay_w09_claim_autocommit": (R, "wrong", "one-transaction (claim committed at once: no lock held while publishing)", '''
def relay_batch(conn, publish, limit=10):
    rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
'''),
"relay_w10_mark_after_commit": (R, "wrong", "one-transaction (marked in a second transaction)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
    with conn.transaction():
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
'''),
"relay_w11_returns_limit": (R, "wrong", "count (returns limit)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return limit if rows else 0
'''),
"relay_w12_failed_publish_marked": (R, "wrong", "one-transaction / mark-sent (a failed publish swallowed, its row marked sent)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception as error:
                print(f"row {row_id}: {error}")
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
'''),
"relay_w13_skips_failed_goes_on": (R, "wrong", "oldest-first (a failed row skipped, later rows go out before it)", '''
def relay_batch(conn, publish, limit=10):
    sent = []
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception:
                continue
            sent.append(row_id)
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": sent})
    return len(sent)
'''),
"relay_w14_delete_rows": (R, "wrong", "mark-sent (deletes the rows)", relay(GOOD_CLAIM, mark='conn.execute("DELETE FROM outbox WHERE id = ANY(%s)", [[row[0] for row in rows]])')),
"relay_w15_json_text_payload": (R, "wrong", "oldest-first / publish each (payload as a JSON string)", relay(GOOD_CLAIM, "publish(subject, json.dumps(payload), msg_id=str(event_id))").replace("def relay_batch", "import json\n\ndef relay_batch")),
"relay_w16_fixed_subject": (R, "wrong", "publish each (SUBJECT hard-coded)", relay(GOOD_CLAIM, "publish(SUBJECT, payload, msg_id=str(event_id))")),
"relay_w17_limit_plus_one": (R, "wrong", "oldest-first (limit + 1)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit + 1}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
'''),
"relay_w18_order_by_created_at": (R, "wrong", "oldest-first (created_at: rows of one transaction tie)", relay(GOOD_CLAIM.replace("ORDER BY id", "ORDER BY created_at"))),
"relay_w19_for_share": (R, "wrong", "skip-locked (FOR SHARE: a second relay takes the same rows)", relay(GOOD_CLAIM.replace("FOR UPDATE", "FOR SHARE"))),
"relay_w20_publish_then_conditional_mark": (R, "wrong", "skip-locked / one-transaction (read without a lock, marked if still unsent)", '''
def relay_batch(conn, publish, limit=10):
    rows = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s",
                        [limit]).fetchall()
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    conn.execute("UPDATE outbox SET sent_at = now() WHERE id = ANY(%s) AND sent_at IS NULL", [[r[0] for r in rows]])
    return len(rows)
'''),
"relay_w21_subquery_limit": (R, "wrong", "skip-locked / oldest-first (arguable: LIMIT in a subquery, so a second relay gets nothing)", relay(
    "SELECT id, event_id, subject, payload FROM outbox WHERE id IN (SELECT id FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT %s) ORDER BY id FOR UPDATE SKIP LOCKED")),
"relay_w22_count_distinct_subjects": (R, "wrong", "count (counts subjects, not rows)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len({row[2] for row in rows})
'''),
"relay_w23_mark_sent_null_too": (R, "wrong", "mark-sent (also rewrites created_at)", relay(GOOD_CLAIM, mark='conn.execute("UPDATE outbox SET sent_at = now(), created_at = now() WHERE id = ANY(%s)", [[row[0] for row in rows]])')),
"relay_w24_publish_after_mark_commit": (R, "wrong", "one-transaction (marked and committed before publishing: a crash loses them)", '''
def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    for row_id, event_id, subject, payload in rows:
        publish(subject, payload, msg_id=str(event_id))
    return len(rows)
'''),
# ---------------- correct
"relay_c01_hint": (R, "correct", "correct (hint 4 word for word)", '''
def relay_batch(conn, publish, limit=10):
    """Claim up to `limit` unsent outbox rows, publish them with their event_id as message id, mark them
    sent — in one transaction. Return how many were published."""
    with conn.transaction():
        rows = conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall()
        for row_id, event_id, subject, payload in rows:
            publish(subject, payload, msg_id=str(event_id))
        conn.execute(sql.query("outbox", "mark_sent"), {"ids": [row[0] for row in rows]})
    return len(rows)
'''),
"relay_c02_own_sql_clock": (R, "correct", "correct (own SQL, clock_timestamp, named params)", '''
CLAIM = """
SELECT o.id, o.event_id, o.subject, o.payload
FROM outbox AS o
WHERE o.sent_at IS NULL
ORDER BY o.id ASC
LIMIT %(n)s
FOR UPDATE OF o SKIP LOCKED
"""

def relay_batch(conn, publish, limit=10):
    with conn.transaction():
        batch = conn.execute(CLAIM, {"n": limit}).fetchall()
        for _id, event_id, subject, payload in batch:
            publish(subject, payload, msg_id=f"{event_id}")
        if batch:
            conn.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = ANY(%(ids)s)",
                         {"ids": [r[0] for r in batch]})
        return len(batch)
'''),
"relay_c03_stop_at_failure": (R, "correct", "correct (stops at a failed publish, marks what went out, returns that count)", '''
def relay_batch(conn, publish, limit=10):
    published = []
    with conn.transaction():
        for row_id, event_id, subject, payload in conn.execute(sql.query("outbox", "claim"), {"limit": limit}).fetchall():
            try:
                publish(subject, payload, msg_id=str(event_id))
            except Exception as error:
                print(f"row {row_id} not published ({error}); it stays unsent")
                break
            published.append(row_id)
        if published:
            conn.execute(sql.query("outbox", "mark_sent"), {"ids": published})
    return len(published)
'''),
"relay_c04_no_key_update": (R, "correct", "correct (FOR NO KEY UPDATE SKIP LOCKED, a mark per row)", '''
def relay_batch(conn, publish, limit=10):
    count = 0
    with conn.transaction():
        cur = conn.execute("SELECT id, event_id, subject, payload FROM outbox WHERE sent_at IS NULL "
                           "ORDER BY id LIMIT %s FOR NO KEY UPDATE SKIP LOCKED", (limit,))
        for row in cur.fetchall():
            publish(row[2], row[3], msg_id=str(row[1]))
            conn.execute("UPDATE outbox SET sent_at = now() WHERE id = %s", (row[0],))
            count += 1
    return count
'''),
"relay_c05_dict_rows_cte_mark": (R, "correct", "correct (dict rows, a cursor, mark with unnest)", '''
from psycopg.rows import dict_row

def relay_batch(conn, publish, limit=10):
    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        cur.execute(sql.query("outbox", "claim"), {"limit": limit})
        rows = cur.fetchall()
        for r in sorted(rows, key=lambda r: r["id"]):
            publish(r["subject"], r["payload"], msg_id=str(r["event_id"]))
        cur.execute("UPDATE outbox SET sent_at = now() FROM unnest(%s::bigint[]) AS done(id) WHERE outbox.id = done.id",
                    [[r["id"] for r in rows]])
    return len(rows)
'''),
}

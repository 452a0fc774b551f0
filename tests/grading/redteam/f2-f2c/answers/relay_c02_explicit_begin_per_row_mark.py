# CORRECT: explicit BEGIN/COMMIT, own SQL with aliases, each row marked right after its publish
CLAIM = """
SELECT o.id AS row_id, o.event_id AS eid, o.subject AS subj, o.payload AS body
  FROM outbox AS o
 WHERE o.sent_at IS NULL
 ORDER BY o.id ASC
 LIMIT %(n)s
   FOR UPDATE OF o SKIP LOCKED
"""


def relay_batch(conn, publish, limit=10):
    conn.execute("BEGIN")
    try:
        batch = conn.execute(CLAIM, {"n": limit}).fetchall()
        count = 0
        for row_id, eid, subj, body in sorted(batch):
            publish(subj, body, msg_id=f"{eid}")
            conn.execute("UPDATE outbox SET sent_at = clock_timestamp() WHERE id = %s", (row_id,))
            count += 1
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return count

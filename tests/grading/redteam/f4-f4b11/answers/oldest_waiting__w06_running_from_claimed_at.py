# expect: wrong
# rule: from-due-at: a running job (lease_token set) is measured from claimed_at, the moment its worker took it, not from due_at
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    rows = conn.execute("""
        SELECT queue,
               extract(epoch FROM now() - min(CASE WHEN lease_token IS NOT NULL THEN claimed_at ELSE due_at END))::float8
        FROM jobs
        WHERE run_at <= now() OR attempts > 0
        GROUP BY queue""")
    return {q: s for q, s in rows}

# expect: correct
# rule: correct (named parameters, a tuple() around the row)
def claim(conn, lease_s):
    """Lease the oldest ready job for lease_s seconds; return (id, type, payload), or None."""
    row = conn.execute("""
        UPDATE jobs
           SET locked_until = now() + make_interval(secs => %(lease)s),
               attempts = attempts + 1
         WHERE id = (SELECT id
                       FROM jobs
                      WHERE run_at <= now()
                        AND (locked_until IS NULL OR locked_until < now())
                      ORDER BY run_at
                      LIMIT 1
                        FOR UPDATE SKIP LOCKED)
        RETURNING id, type, payload""", {"lease": lease_s}).fetchone()
    return None if row is None else tuple(row)

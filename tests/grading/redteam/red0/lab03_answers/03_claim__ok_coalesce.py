# expect: correct
# rule: correct (coalesce to -infinity, the lease as a float of seconds, clock of the statement)
def claim(conn, lease_s):
    """Lease the oldest ready job for lease_s seconds; return (id, type, payload), or None."""
    return conn.execute("""
        UPDATE jobs SET attempts = attempts + 1,
                        locked_until = now() + (%s::float8 * interval '1 second')
        WHERE id = (SELECT id FROM jobs
                    WHERE coalesce(locked_until, '-infinity') < now() AND NOT run_at > now()
                    ORDER BY run_at ASC
                    FOR UPDATE SKIP LOCKED
                    LIMIT 1)
        RETURNING id, type, payload""", [lease_s]).fetchone()

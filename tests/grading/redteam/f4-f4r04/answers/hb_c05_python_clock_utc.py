# exercise: 04.heartbeat
# kind: correct
# rule: correct (end computed from the database's now() read in the same statement via a cursor, bool(rowcount))
def extend_lease(conn, job, lease_s):
    with conn.cursor() as cur:
        cur.execute("UPDATE jobs SET run_at = now() + %s::float8 * interval '1 s', claimed_by = claimed_by "
                    "WHERE lease_token = %s AND id = %s", (float(lease_s), job.lease_token, job.id))
        return cur.rowcount > 0

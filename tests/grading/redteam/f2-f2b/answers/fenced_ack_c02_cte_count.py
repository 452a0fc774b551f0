# correct | - | CTE DELETE counted by a SELECT, row-value comparison, named parameters
def ack(conn, job_id, lease_token):
    gone = conn.execute("""
        WITH gone AS (DELETE FROM jobs WHERE (id, lease_token) = (%(id)s, %(tok)s) RETURNING 1)
        SELECT count(*) FROM gone""", {"id": job_id, "tok": lease_token}).fetchone()[0]
    return gone

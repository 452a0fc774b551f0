# expect: correct
# rule: correct: the token compared as text, a CTE, bool of a count
def ack(conn, job_id, lease_token):
    deleted = conn.execute("""WITH gone AS (DELETE FROM jobs WHERE id = %s AND lease_token::text = %s RETURNING 1)
                              SELECT count(*) FROM gone""", [job_id, str(lease_token)]).fetchone()[0]
    return bool(deleted)

# exercise: 04.fenced_ack
# kind: correct
# rule: correct (CTE counting the deleted rows, returns 0 or 1)
def ack(conn, job_id, lease_token):
    sql = """
        WITH done AS (
            DELETE FROM jobs j
            USING (SELECT %s::bigint AS id, %s::uuid AS token) mine
            WHERE j.id = mine.id AND j.lease_token = mine.token
            RETURNING j.id
        )
        SELECT count(*) FROM done
    """
    (n,) = conn.execute(sql, (job_id, lease_token)).fetchone()
    return n

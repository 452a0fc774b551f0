# exercise: 04.fenced_ack
# kind: correct
# rule: correct (IN over a subquery, fetchall -> list)
def ack(conn, job_id, lease_token):
    rows = conn.execute("""
        DELETE FROM jobs
        WHERE id IN (SELECT id FROM jobs WHERE id = %(j)s AND lease_token IS NOT DISTINCT FROM %(t)s)
          AND lease_token = %(t)s
        RETURNING id""", {"j": job_id, "t": lease_token}).fetchall()
    return rows

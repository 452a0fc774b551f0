# exercise: 04.fenced_ack
# kind: arguable
# rule: arguable: SELECT ... FOR UPDATE then DELETE by id in one transaction (safe, but not checked 'in the statement that deletes')
def ack(conn, job_id, lease_token):
    with conn.transaction():
        row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR UPDATE", [job_id]).fetchone()
        if row is None or row[0] != lease_token:
            return False
        conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
    return True

# expect: correct
# rule: correct (behaviour): SELECT ... FOR UPDATE then DELETE, in one transaction
def ack(conn, job_id, lease_token):
    with conn.transaction():
        row = conn.execute("SELECT lease_token FROM jobs WHERE id = %s FOR UPDATE", [job_id]).fetchone()
        if row is None or str(row[0]) != str(lease_token):
            return False
        conn.execute("DELETE FROM jobs WHERE id = %s", [job_id])
        return True

# exercise: 04.fenced_ack
# kind: wrong
# rule: fenced: SELECT then DELETE by id inside a READ COMMITTED transaction (still a race)
def ack(conn, job_id, lease_token):
    with conn.transaction():   # "atomic"
        current = conn.execute("SELECT lease_token FROM jobs WHERE id = %s", [job_id]).fetchone()
        if not current or current[0] != lease_token:
            return False
        deleted = conn.execute("DELETE FROM jobs WHERE id = %s", [job_id]).rowcount
    return deleted == 1

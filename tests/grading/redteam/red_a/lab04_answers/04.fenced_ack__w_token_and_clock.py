# expect: wrong
# rule: delete: refuses to delete once the lease ran out, even when no one claimed it since
def ack(conn, job_id, lease_token):
    return conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s AND run_at > now()",
                        [job_id, lease_token]).rowcount == 1

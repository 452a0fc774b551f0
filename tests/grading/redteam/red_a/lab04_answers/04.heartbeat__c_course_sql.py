# expect: correct
# rule: correct: the course's own statement via sql.query, rowcount
def extend_lease(conn, job, lease_s):
    cur = conn.execute(sql.query("queue", "extend_lease"),
                       {"id": job.id, "lease_token": job.lease_token, "lease_s": lease_s})
    return cur.rowcount > 0

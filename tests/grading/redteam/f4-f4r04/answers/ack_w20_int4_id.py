# exercise: 04.fenced_ack
# kind: wrong
# rule: delete: casts the job's id to int4 (fails for ids past 2^31; jobs.id is bigint)
def ack(conn, job_id, lease_token):
    cur = conn.execute("DELETE FROM jobs WHERE id = %s::int4 AND lease_token = %s::uuid", [job_id, lease_token])
    return cur.rowcount == 1

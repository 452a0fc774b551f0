# correct
def oldest_waiting(conn):
    query = """
    WITH waited_for AS (
        SELECT j.queue AS q, j.due_at AS due
        FROM jobs AS j
        WHERE NOT (j.run_at > now() AND j.attempts = 0)
    )
    SELECT q, extract(epoch from now())::float8 - extract(epoch from min(due))::float8 AS secs
    FROM waited_for GROUP BY q
    """
    return {row[0]: row[1] for row in conn.execute(query)}

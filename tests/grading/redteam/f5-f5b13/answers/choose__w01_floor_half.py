def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    half = postgres_jobs_per_s // 2  # half of what Postgres drains, in whole jobs
    if peak_jobs_per_s > half or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

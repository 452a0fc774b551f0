def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    # a laptop's measurement undersells Postgres: a tuned server drains at least 5,000 jobs/s
    capacity = max(postgres_jobs_per_s, 5_000)
    if peak_jobs_per_s > capacity / 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

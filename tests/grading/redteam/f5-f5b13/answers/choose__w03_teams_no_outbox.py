def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    if peak_jobs_per_s > postgres_jobs_per_s / 2:
        # the queue leaves the database: jobs born in a transaction need the outbox
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    if teams_reading_each_event > 1:
        return "broker"  # a fan-out log for the other teams
    return "postgres"

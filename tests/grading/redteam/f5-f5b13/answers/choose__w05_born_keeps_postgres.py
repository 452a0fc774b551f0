def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    over_half = peak_jobs_per_s > postgres_jobs_per_s / 2
    if over_half:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    if teams_reading_each_event > 1 and not born_in_a_db_transaction:
        return "broker"
    # born in the database's transaction and under the ceiling: Postgres keeps it atomic
    return "postgres"

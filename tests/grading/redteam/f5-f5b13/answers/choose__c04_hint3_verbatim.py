def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    needs_broker = peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1
    if not needs_broker:
        return 'postgres'
    return 'broker + outbox' if born_in_a_db_transaction else 'broker'

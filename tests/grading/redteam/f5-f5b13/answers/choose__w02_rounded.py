def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    # measured figures are noisy: compare them in whole jobs per second
    peak, capacity = round(peak_jobs_per_s), round(postgres_jobs_per_s)
    if peak > capacity / 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

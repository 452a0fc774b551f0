def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    utilisation = peak_jobs_per_s / postgres_jobs_per_s
    if utilisation <= 0.5 and teams_reading_each_event <= 1:
        return "postgres"
    elif born_in_a_db_transaction:
        return "broker + outbox"
    else:
        return "broker"

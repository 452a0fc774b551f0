def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    one_team = teams_reading_each_event == 1
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or not one_team:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    needs_a_broker = 2 * peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event >= 2
    if not needs_a_broker:
        return "postgres"
    return {True: "broker + outbox", False: "broker"}[bool(born_in_a_db_transaction)]

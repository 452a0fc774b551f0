# wrong (outbox): outbox only when the peak forced the broker, not when many teams did
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    if peak_jobs_per_s > postgres_jobs_per_s / 2:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    if teams_reading_each_event > 1:
        return "broker"
    return "postgres"

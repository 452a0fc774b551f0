# correct
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    needs_broker = 2 * peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event >= 2
    if not needs_broker:
        return "postgres"
    return "broker" + (" + outbox" if born_in_a_db_transaction else "")

# correct: peak doubled, nested ifs, early returns
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if 2 * peak_jobs_per_s <= postgres_jobs_per_s:
        if teams_reading_each_event <= 1:
            return "postgres"
    if born_in_a_db_transaction:
        return "broker + outbox"
    return "broker"

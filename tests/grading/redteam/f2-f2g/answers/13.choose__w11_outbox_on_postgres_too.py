# wrong: otherwise-postgres -- jobs born in a transaction get "broker + outbox" even with no need for a broker
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1 or born_in_a_db_transaction and peak_jobs_per_s > 1000:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

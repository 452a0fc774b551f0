# wrong: many-teams -- under 100 jobs/s it is Postgres, whatever the teams ("small is always Postgres")
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if peak_jobs_per_s < 100:
        return "postgres"
    if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

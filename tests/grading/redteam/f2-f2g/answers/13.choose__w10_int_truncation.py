# wrong: over-half -- rates truncated to whole jobs/s: 20.4 of 40.6 (just over half) is missed
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    if int(peak_jobs_per_s) * 2 > int(postgres_jobs_per_s) or teams_reading_each_event > 1:
        return "broker + outbox" if born_in_a_db_transaction else "broker"
    return "postgres"

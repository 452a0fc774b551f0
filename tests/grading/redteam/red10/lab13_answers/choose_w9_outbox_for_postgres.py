# wrong | otherwise-postgres (born in a transaction: 'postgres + outbox')
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    choice = "broker" if peak_jobs_per_s > postgres_jobs_per_s / 2 or teams_reading_each_event > 1 else "postgres"
    return choice + " + outbox" if born_in_a_db_transaction else choice

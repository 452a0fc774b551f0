# correct
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    too_busy = peak_jobs_per_s / postgres_jobs_per_s > 0.5
    many = not teams_reading_each_event <= 1
    table = {(False, False): "postgres", (False, True): "postgres",
             (True, False): "broker", (True, True): "broker + outbox"}
    return table[(too_busy or many, bool(born_in_a_db_transaction))]

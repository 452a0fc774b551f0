# correct: booleans and a lookup table
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    """'postgres', 'broker' or 'broker + outbox', by the rules above."""
    needs_broker = 2 * peak_jobs_per_s > postgres_jobs_per_s or teams_reading_each_event >= 2
    table = {(False, False): "postgres", (False, True): "postgres",
             (True, False): "broker", (True, True): "broker + outbox"}
    return table[(bool(needs_broker), bool(born_in_a_db_transaction))]

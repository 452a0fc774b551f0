# correct: a lookup table keyed by (needs a broker, born in a transaction)
_ANSWER = {(False, False): "postgres", (False, True): "postgres",
           (True, False): "broker", (True, True): "broker + outbox"}


def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    over_half = peak_jobs_per_s * 2 > postgres_jobs_per_s
    many = teams_reading_each_event >= 2
    return _ANSWER[(bool(over_half or many), bool(born_in_a_db_transaction))]

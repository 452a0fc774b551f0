# rule: correct (Fraction, a lookup table)
def choose_queue(peak_jobs_per_s, postgres_jobs_per_s, born_in_a_db_transaction, teams_reading_each_event):
    from fractions import Fraction
    over_half = Fraction(peak_jobs_per_s) > Fraction(postgres_jobs_per_s) / 2
    many = teams_reading_each_event > 1
    return {(False, False): "postgres", (False, True): "postgres",
            (True, False): "broker", (True, True): "broker + outbox"}[(over_half or many, bool(born_in_a_db_transaction))]

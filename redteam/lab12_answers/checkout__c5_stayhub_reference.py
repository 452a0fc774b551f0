# expect: pass correct: delegates to stayhub.checkout_with_jobs
def checkout(conn, guest_id, room_id, nights):
    return stayhub.checkout_with_jobs(conn, guest_id, room_id, nights)

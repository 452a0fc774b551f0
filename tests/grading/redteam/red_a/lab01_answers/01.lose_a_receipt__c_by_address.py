# expect: correct
# rule: correct: an outage; waits for a refused request to this customer's address after the order
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
        try:
            placed_at = time.time()
            order = app.place_order(2, total_cents=4200)
            processes.wait_until(
                lambda: [r for r in provider.requests() if r.outcome == "down" and r.at >= placed_at - 1],
                timeout=60)
        finally:
            provider.healthy()
        return order["id"]
    order = app.place_order(2, total_cents=4200)
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    return order["id"]

# expect: correct
# rule: correct (failure_rate=1, wait for a 503 newer than our order, reset(settings=True))
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "deploy":
        order = app.place_order(3, total_cents=2500)
        app.terminate()
        return order["id"]
    if how == "crash":
        order = app.place_order(3, total_cents=2500)
        app.kill()
        return order["id"]
    provider.configure(failure_rate=1)
    seen = len(provider.requests())
    order = app.place_order(3, total_cents=2500)
    processes.wait_until(lambda: [r for r in provider.requests()[seen:] if r.status >= 500], timeout=60)
    provider.reset(settings=True)
    return order["id"]

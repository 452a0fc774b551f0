# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (failure_rate=1, wait for a 503 that arrived after the order, put back with reset(settings=True))
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    match how:
        case "deploy":
            order = app.place_order(2, total_cents=2000)
            app.terminate()
        case "crash":
            order = app.place_order(2, total_cents=2000)
            app.kill()
        case "provider_error":
            before = {(r.at, r.status) for r in provider.requests()}
            provider.configure(failure_rate=1.0)
            order = app.place_order(2, total_cents=2000)
            processes.wait_until(
                lambda: any(r.status >= 500 and (r.at, r.status) not in before for r in provider.requests()),
                timeout=120)
            provider.reset(settings=True)
        case _:
            raise ValueError(how)
    return order["id"]

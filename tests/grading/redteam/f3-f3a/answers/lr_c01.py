# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (match statement; a failure rate of 1, wait for a new refused request, then reset(settings=True))
def lose_a_receipt(app, provider, how):
    match how:
        case "deploy":
            order_id = app.place_order(2, total_cents=1200)["id"]
            app.terminate()
        case "crash":
            order_id = app.place_order(3, total_cents=1300)["id"]
            app.kill()
        case "provider_error":
            seen = len(provider.requests())
            provider.configure(failure_rate=1.0)
            order_id = app.place_order(4, total_cents=1400)["id"]
            processes.wait_until(lambda: any(r.status >= 500 for r in provider.requests()[seen:]), timeout=30)
            provider.reset(settings=True)
        case _:
            raise ValueError(how)
    return order_id

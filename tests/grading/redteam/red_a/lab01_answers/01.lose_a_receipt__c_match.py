# expect: correct
# rule: correct: match statement, stop right away, an outage window with no end
def lose_a_receipt(app, provider, how):
    match how:
        case "deploy":
            order = app.place_order(4, items=[{"name": "dal", "quantity": 1, "price_cents": 800}])
            app.terminate()
        case "crash":
            order = app.place_order(4, items=[{"name": "dal", "quantity": 1, "price_cents": 800}])
            app.kill()
        case "provider_error":
            seen = len(provider.requests())
            provider.outage(3600)
            order = app.place_order(4, items=[{"name": "dal", "quantity": 1, "price_cents": 800}])
            processes.wait_until(lambda: len(provider.requests()) > seen, timeout=60, what="the refusal")
            provider.healthy()
    return order["id"]

# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-back (provider.reset() forgets the records but keeps the outage: the provider stays down)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        seen = len(provider.requests())
        provider.configure(failure_rate=1.0)
        order_id = app.place_order(1, total_cents=1250)["id"]
        processes.wait_until(lambda: len(provider.requests()) > seen, 60)
        provider.reset()
        return order_id
    order_id = app.place_order(1, total_cents=1250)["id"]
    (app.terminate if how == "deploy" else app.kill)()
    return order_id

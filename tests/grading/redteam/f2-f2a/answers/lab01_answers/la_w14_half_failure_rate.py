# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-refuses (a failure rate of 0.5: the receipt is refused only if the seeded draw says so; luck)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    if how == "provider_error":
        seen = len(provider.requests())
        provider.configure(failure_rate=0.5)
        order_id = app.place_order(1, total_cents=1250)["id"]
        processes.wait_until(lambda: len(provider.requests()) > seen, 60)
        provider.healthy()
        return order_id
    order_id = app.place_order(1, total_cents=1250)["id"]
    (app.terminate if how == "deploy" else app.kill)()
    return order_id

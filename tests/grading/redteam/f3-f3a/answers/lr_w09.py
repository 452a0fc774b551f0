# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-back (reset() without settings=True keeps the outage on)
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        before = len(provider.requests())
        provider.configure(down=True)
        order_id = app.place_order(1, total_cents=1000)["id"]
        processes.wait_until(lambda: len(provider.requests()) > before, timeout=60)
        provider.reset()
        return order_id
    order_id = app.place_order(1, total_cents=1000)["id"]
    (app.terminate if how == "deploy" else app.kill)()
    return order_id

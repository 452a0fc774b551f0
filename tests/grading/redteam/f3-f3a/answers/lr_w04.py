# exercise: 01.lose_a_receipt
# kind: wrong
# rule: provider-back (an outage of 3 s that ends by itself; it returns while the provider is still down)
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.outage(3)
        return app.place_order(1, total_cents=1000)["id"]
    order_id = app.place_order(1, total_cents=1000)["id"]
    (app.terminate if how == "deploy" else app.kill)()
    return order_id

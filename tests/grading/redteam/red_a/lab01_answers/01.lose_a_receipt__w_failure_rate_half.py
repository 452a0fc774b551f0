# expect: wrong
# rule: provider-refuses: a failure rate of 0.5 (refuses only sometimes), no wait
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(failure_rate=0.5)
        order = app.place_order(1, total_cents=1200)
        time.sleep(2.5)
        provider.configure(failure_rate=0.0)
        return order["id"]
    order = app.place_order(1, total_cents=1200)
    app.terminate() if how == "deploy" else app.kill()
    return order["id"]

# expect: wrong
# rule: return-order-id: two orders placed (one to "warm up"), both lost
def lose_a_receipt(app, provider, how):
    app.place_order(5, total_cents=100)
    if how == "provider_error":
        provider.configure(down=True)
    order = app.place_order(1, total_cents=1200)
    if how == "provider_error":
        processes.wait_until(lambda: sum(r.outcome == "down" for r in provider.requests()) >= 1, timeout=30)
        provider.healthy()
    elif how == "deploy":
        app.terminate()
    else:
        app.kill()
    return order["id"]

# expect: wrong
# rule: provider-refuses: waits for any request the provider ever had, not this order's; healed too early
def lose_a_receipt(app, provider, how):
    if how != "provider_error":
        order = app.place_order(1, total_cents=1200)
        app.terminate() if how == "deploy" else app.kill()
        return order["id"]
    provider.configure(down=True)
    order = app.place_order(1, total_cents=1200)
    processes.wait_until(lambda: provider.requests(), timeout=30)
    provider.healthy()
    return order["id"]

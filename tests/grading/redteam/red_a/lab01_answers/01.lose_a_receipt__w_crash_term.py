# expect: wrong
# rule: crash-sigkill: an out-of-memory kill done with SIGTERM
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
    order = app.place_order(1, total_cents=1200)
    if how == "provider_error":
        n = len(provider.requests())
        processes.wait_until(lambda: any(r.outcome == "down" for r in provider.requests()), timeout=30)
        provider.healthy()
    else:
        app.terminate()
    return order["id"]

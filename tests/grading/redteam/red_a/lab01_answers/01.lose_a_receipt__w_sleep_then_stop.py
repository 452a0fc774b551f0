# expect: wrong
# rule: deploy-sigterm/crash-sigkill: waits for the receipt first (2 s), so it arrives
def lose_a_receipt(app, provider, how):
    if how == "provider_error":
        provider.configure(down=True)
        order = app.place_order(1, total_cents=1200)
        time.sleep(3)
        provider.healthy()
        return order["id"]
    order = app.place_order(1, total_cents=1200)
    time.sleep(2)  # let the order settle
    app.terminate() if how == "deploy" else app.kill()
    return order["id"]

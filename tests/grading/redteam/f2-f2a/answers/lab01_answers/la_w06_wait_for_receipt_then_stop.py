# exercise: 01.lose_a_receipt
# kind: wrong
# rule: deploy-sigterm / crash-sigkill (waits until the provider has the receipt, then stops the app: nothing is lost)
def lose_a_receipt(app, provider, how):
    """Place one order whose receipt never arrives; return its id."""
    seen = len(provider.requests())
    if how == "provider_error":
        provider.configure(down=True)
    order_id = app.place_order(1, total_cents=1500)["id"]
    processes.wait_until(lambda: len(provider.requests()) > seen, 60)
    if how == "deploy":
        app.terminate()
    elif how == "crash":
        app.kill()
    else:
        provider.healthy()
    return order_id

# expect: correct
# rule: correct: counts the provider's requests before, waits for one more refused, reset(settings=True)
def lose_a_receipt(app, provider, how):
    stop = {"deploy": app.terminate, "crash": app.kill}
    if how in stop:
        order_id = app.place_order(3, total_cents=999)["id"]
        stop[how]()
        return order_id
    refused_before = sum(1 for r in provider.requests() if r.status == 503)
    provider.configure(failure_rate=1.0)
    order_id = app.place_order(3, total_cents=999)["id"]
    processes.wait_until(lambda: sum(1 for r in provider.requests() if r.status == 503) > refused_before,
                         timeout=60)
    provider.reset(settings=True)
    return order_id

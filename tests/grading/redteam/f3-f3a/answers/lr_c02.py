# exercise: 01.lose_a_receipt
# kind: correct
# rule: correct (a table of stoppers; an outage, waiting for a 503 addressed to this order's customer, healthy())
def _refused_after(provider, before, to):
    return [r for r in provider.requests()[before:] if r.to == to and r.status == 503]


def lose_a_receipt(app, provider, how):
    stoppers = {"deploy": app.terminate, "crash": app.kill}
    if how in stoppers:
        placed = app.place_order(1, total_cents=999)
        stoppers[how]()
        return placed["id"]
    if how != "provider_error":
        raise ValueError(f"how must be deploy, crash or provider_error, not {how!r}")
    before = len(provider.requests())
    provider.configure(down=True)
    try:
        placed = app.place_order(5, total_cents=2500)
        to = app.customer(5)["email"]
        processes.wait_until(lambda: _refused_after(provider, before, to), timeout=60, what="the refusal")
    finally:
        provider.healthy()
    return placed["id"]

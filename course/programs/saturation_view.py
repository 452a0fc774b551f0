"""Views for lab 10: why the wait explodes near saturation, drawn from course.programs.queueing_theory.

Everything here draws or formats what course.programs.queueing_theory computes (Erlang C, the seeded M/M/c
simulation); nothing is computed twice. The widget is the thinnest layer of all:

    explorer(arrival_rate=11, service_time=4, servers=50)

shows three sliders (arrival rate, service time, workers), the curve of mean wait against
utilisation for the chosen service time and pool, the current point on it, and one line of text:

    λ = 11.0 jobs/s, S = 4.0 s, c = 50 workers: ρ = 0.88; 28% wait; mean wait 0.19 s; 95 % within 1.16 s
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from course.programs import queueing_theory

CURVE_POINTS = 150
CURVE_TOP = 0.985  # the curve stops short of ρ = 1, where the mean wait is infinite


# -- numbers ---------------------------------------------------------------------------------------


def wait_curve(service_time: float, servers: int, *, points: int = CURVE_POINTS,
               top: float = CURVE_TOP) -> tuple[list[float], list[float]]:
    """(utilisations, mean waits in seconds) from Erlang C, for this service time and pool size, as
    the arrival rate goes from almost nothing to almost saturation."""
    utilisations = [top * k / points for k in range(1, points + 1)]
    waits = [queueing_theory.erlang_c(rho * servers / service_time, service_time, servers).mean_wait
             for rho in utilisations]
    return utilisations, waits


def readout(arrival_rate: float, service_time: float, servers: int) -> str:
    """One line: the load, and what Erlang C says about the wait (or that there is no steady wait)."""
    head = f"λ = {arrival_rate:.1f} jobs/s, S = {service_time:.1f} s, c = {servers} workers:"
    rho = queueing_theory.utilisation(arrival_rate, service_time, servers)
    if rho >= 1:
        busy = arrival_rate * service_time
        return (f"{head} ρ = {rho:.2f}: jobs arrive faster than they are finished, the queue grows "
                f"without end; at least {math.floor(busy) + 1} workers needed")
    queue = queueing_theory.erlang_c(arrival_rate, service_time, servers)
    return (f"{head} ρ = {rho:.2f}; {queue.probability_of_waiting:.0%} wait; mean wait {_seconds(queue.mean_wait)}; "
            f"95 % within {_seconds(queue.wait_percentile(0.95))}")


def _seconds(value: float) -> str:
    if value == 0:
        return "0 s"
    if value < 0.01:
        return f"{value * 1000:.1f} ms"
    if value < 120:
        return f"{value:.2f} s"
    return f"{value / 60:.1f} min"


@dataclass(frozen=True)
class Agreement:
    """The formula and the simulation at one utilisation."""

    utilisation: float
    formula: float  # Erlang C mean wait, seconds
    simulated: float  # the seeded simulation's mean wait, seconds
    stderr: float  # the simulation's standard error (batch means)
    customers: int

    @property
    def gap_in_stderrs(self) -> float:
        """How far the simulation landed from the formula, in its own standard errors."""
        return abs(self.simulated - self.formula) / self.stderr


def customers_for(utilisation: float) -> int:
    """Near saturation the queue remembers longer, so the same precision takes more simulated jobs."""
    return 100_000 if utilisation <= 0.7 else 200_000 if utilisation <= 0.85 else 400_000


def formula_vs_simulation(service_time: float, servers: int, utilisations: Sequence[float], *,
                          seed: int = 1, progress: Callable[[], None] | None = None) -> list[Agreement]:
    """For each utilisation: Erlang C's mean wait next to a seeded M/M/c simulation of the same queue."""
    rows = []
    for index, rho in enumerate(utilisations):
        rate = rho * servers / service_time
        formula = queueing_theory.erlang_c(rate, service_time, servers)
        customers = customers_for(rho)
        run = queueing_theory.simulate_mmc(rate, service_time, servers, customers, seed=seed + index)
        rows.append(Agreement(rho, formula.mean_wait, run.mean_wait, run.mean_wait_stderr, customers))
        if progress:
            progress()
    return rows


def agreement_table(rows: Sequence[Agreement]) -> str:
    lines = ["  ρ     Erlang C    simulated (± std. error)    gap", "-" * 56]
    for row in rows:
        lines.append(f"{row.utilisation:5.2f}  {row.formula:8.2f} s   {row.simulated:8.2f} s (± {row.stderr:5.2f} s)"
                     f"      {row.gap_in_stderrs:.1f} σ")
    return "\n".join(lines)


def pool_table(arrival_rate: float, service_time: float, pools: Sequence[int]) -> str:
    """Erlang C for several pool sizes under one load: ρ, the chance of waiting, mean and 95th percentile."""
    lines = ["workers    ρ     P(wait)   mean wait   95 % start within", "-" * 54]
    for servers in pools:
        rho = queueing_theory.utilisation(arrival_rate, service_time, servers)
        if rho >= 1:
            lines.append(f"{servers:7d}  {rho:5.2f}      —       no steady state: the queue grows forever")
            continue
        queue = queueing_theory.erlang_c(arrival_rate, service_time, servers)
        lines.append(f"{servers:7d}  {rho:5.2f}   {queue.probability_of_waiting:6.1%}   "
                     f"{_seconds(queue.mean_wait):>9}   {_seconds(queue.wait_percentile(0.95)):>9}")
    return "\n".join(lines)


# -- pictures --------------------------------------------------------------------------------------


def draw(ax, arrival_rate: float, service_time: float, servers: int) -> None:
    """The mean-wait curve for this S and c, with the current load marked on it."""
    utilisations, waits = wait_curve(service_time, servers)
    rho = queueing_theory.utilisation(arrival_rate, service_time, servers)
    ax.plot(utilisations, waits, color="tab:blue", label=f"Erlang C, c = {servers}, S = {service_time:g} s")
    if rho < 1:
        current = queueing_theory.erlang_c(arrival_rate, service_time, servers).mean_wait
        ax.plot([rho], [current], "o", color="tab:red", markersize=8,
                label=f"now: ρ = {rho:.2f}, mean wait {_seconds(current)}")
        top = max(current * 1.5, waits[int(len(waits) * 0.9)])
    else:
        ax.axvline(1.0, color="tab:red", linestyle="--", label=f"now: ρ = {rho:.2f} ≥ 1, no steady state")
        top = waits[int(len(waits) * 0.9)]
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, max(top, service_time * 0.05))
    ax.set_xlabel("utilisation ρ = λ × S / c  (the share of time each worker is busy)")
    ax.set_ylabel("mean wait before a worker starts the job (s)")
    ax.set_title("The wait explodes as the workers approach 100 % busy")
    ax.legend(loc="upper left", fontsize="small")


def plot_agreement(service_time: float, servers: int, rows: Sequence[Agreement], *, also: Sequence[int] = (),
                   ax=None):
    """The formula's curve (for `servers`, and any pools in `also`), with the simulation as points."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4))
    for count, colour in zip([servers, *also], ("tab:blue", "tab:green", "tab:purple", "tab:brown")):
        utilisations, waits = wait_curve(service_time, count)
        ax.plot(utilisations, waits, color=colour, label=f"Erlang C, {count} worker(s)")
    ax.errorbar([r.utilisation for r in rows], [r.simulated for r in rows], yerr=[2 * r.stderr for r in rows],
                fmt="o", color="tab:red", capsize=3, label=f"simulation, {servers} worker(s) (± 2 std. errors)")
    ax.set_ylim(0, max(r.simulated for r in rows) * 1.3)
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("utilisation ρ = λ × S / c")
    ax.set_ylabel("mean wait in the queue (s)")
    ax.set_title(f"Mean wait against utilisation, S = {service_time:g} s per job")
    ax.legend(loc="upper left", fontsize="small")
    return ax


# -- the widget ------------------------------------------------------------------------------------


def explorer(arrival_rate: float = 11.0, service_time: float = 4.0, servers: int = 50):
    """Sliders for λ, S and c over the curve and the readout; returns the widget (display it)."""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    style = {"description_width": "170px"}
    layout = widgets.Layout(width="560px")
    rate = widgets.FloatSlider(value=arrival_rate, min=0.5, max=30.0, step=0.5, style=style, layout=layout,
                               description="arrival rate λ (jobs/s)", continuous_update=False)
    service = widgets.FloatSlider(value=service_time, min=0.1, max=10.0, step=0.1, style=style, layout=layout,
                                  description="service time S (s)", continuous_update=False)
    pool = widgets.IntSlider(value=servers, min=1, max=100, step=1, style=style, layout=layout,
                             description="workers c", continuous_update=False)
    text = widgets.Output()
    picture = widgets.Output()

    def redraw(_change=None) -> None:
        # The text first and on its own: it is what a reader (or a browser test) waits for.
        with text:
            text.clear_output(wait=True)
            print(readout(rate.value, service.value, pool.value))
        with picture:
            picture.clear_output(wait=True)
            figure, ax = plt.subplots(figsize=(7.5, 3.8))
            draw(ax, rate.value, service.value, pool.value)
            display(figure)
            plt.close(figure)  # displayed once, inside the widget; not again under the cell

    for slider in (rate, service, pool):
        slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([rate, service, pool, text, picture])

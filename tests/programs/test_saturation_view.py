"""course.programs.saturation_view: the curve, the readout, the tables and the widget lab 10 draws from
course.programs.queueing_theory. (That Erlang C and the simulation agree is tests/programs/test_queueing_theory.py's job.)"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from course.programs import queueing_theory, saturation_view  # noqa: E402


def test_the_curve_is_erlang_c_and_climbs_towards_saturation():
    utilisations, waits = saturation_view.wait_curve(4.0, 50, points=40)
    assert len(utilisations) == len(waits) == 40 and utilisations[-1] < 1
    assert all(a < b for a, b in zip(waits, waits[1:]))
    rho = utilisations[20]
    assert waits[20] == pytest.approx(queueing_theory.erlang_c(rho * 50 / 4.0, 4.0, 50).mean_wait)


def test_the_readout_for_tiffins_pool():
    line = saturation_view.readout(11, 4.0, 50)
    assert line.startswith("λ = 11.0 jobs/s, S = 4.0 s, c = 50 workers: ρ = 0.88")
    assert "mean wait 0.19 s" in line and "95 % within 1.16 s" in line


def test_the_readout_at_saturation_says_how_many_workers_it_takes():
    assert "grows without end" in saturation_view.readout(11, 4.0, 44)
    assert "at least 45 workers" in saturation_view.readout(11, 4.0, 44)
    assert "ρ = 1.10" in saturation_view.readout(11, 4.0, 40)


def test_the_pool_table_marks_the_pools_that_never_catch_up():
    lines = saturation_view.pool_table(11, 4, [44, 45, 50]).splitlines()
    assert "no steady state" in lines[2]
    assert lines[3].split()[:2] == ["45", "0.98"] and "3.32 s" in lines[3]
    assert "0.19 s" in lines[4]


def test_formula_and_simulation_agree_in_the_lab_s_table():
    rows = saturation_view.formula_vs_simulation(4.0, 2, [0.5, 0.8], seed=1)
    assert [round(r.utilisation, 2) for r in rows] == [0.5, 0.8]
    assert all(r.gap_in_stderrs < 5 for r in rows)
    table = saturation_view.agreement_table(rows)
    assert table.count("\n") == 3 and "σ" in table


def test_the_pictures_have_labelled_axes():
    figure, ax = plt.subplots()
    saturation_view.draw(ax, 11, 4.0, 50)
    assert ax.get_xlabel().startswith("utilisation") and ax.get_ylabel().startswith("mean wait")
    assert any("now: ρ = 0.88" in t.get_text() for t in ax.get_legend().get_texts())
    figure, ax = plt.subplots()
    saturation_view.draw(ax, 11, 4.0, 40)  # saturated: a line at ρ = 1 instead of a point
    assert any("no steady state" in t.get_text() for t in ax.get_legend().get_texts())
    rows = saturation_view.formula_vs_simulation(1.0, 1, [0.5], seed=2)
    ax = saturation_view.plot_agreement(1.0, 1, rows, also=(5,))
    assert len(ax.get_lines()) >= 2 and ax.get_title().startswith("Mean wait against utilisation")
    plt.close("all")


def test_the_widget_has_three_sliders_and_redraws_when_one_moves(monkeypatch):
    widget = saturation_view.explorer(11, 4.0, 50)
    rate, service, pool, text, picture = widget.children
    assert [s.description for s in (rate, service, pool)] == ["arrival rate λ (jobs/s)", "service time S (s)",
                                                               "workers c"]
    assert (rate.value, service.value, pool.value) == (11, 4.0, 50)
    drawn = []
    monkeypatch.setattr(saturation_view, "draw", lambda ax, *load: drawn.append(load))
    pool.value = 45
    rate.value = 20.0  # saturated: must not raise
    assert drawn == [(11.0, 4.0, 45), (20.0, 4.0, 45)]
    plt.close("all")

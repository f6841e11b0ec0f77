r"""The epoch-based batch samplers (balls-and-bins, random allocation, shuffle) as schemes of the
registry and on the command line, against independent values.

* k-of-t random allocation (k > 1): the certified remove value is not below the exact remove
  divergence of the k-of-t pair, computed in mpmath by expanding the moment over all k-subsets
  (tiny t); k = t is t uses of the Gaussian mechanism, exactly t alpha / (2 sigma^2).
* The command line: ``--epochs`` composes epochs (the RDP of E epochs is E times the partition-sum
  reference of one), the JSON echoes the parameters, bad values exit 2 with one line.
* Shuffle: no guarantee is reported (``epsilon``/``certify`` exit 2 saying no upper bound is known);
  the certified epsilon lower bound contains an mpmath evaluation of log((P(S) - delta)/Q(S)) at the
  event it reports, and lies below the epsilon of the Gaussian mechanism without any amplification
  (every example used once per epoch: an upper bound for shuffling, Balle & Wang 2018, Thm 8).
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import mpmath
import pytest
from _containment import contains, upper

from rigorous_rdp import registry
from rigorous_rdp.cli import main
from rigorous_rdp.errors import UnsupportedEventError
from rigorous_rdp.events import GaussianEvent
from rigorous_rdp.reference import random_allocation as ref
from rigorous_rdp.subsampling import random_allocation as ra
from rigorous_rdp.subsampling.random_allocation_scheme import BallsAndBinsEvent, RandomAllocationEvent, ShuffleEvent
from rigorous_rdp.subsampling.shuffle import shuffle_epsilon_lower_bound


def _within(enclosure: dict, reference: mpmath.mpf) -> bool:
    """lower <= reference <= upper, the decimal strings parsed at 60 digits."""
    with mpmath.workdps(60):
        return mpmath.mpf(enclosure["lower"]) <= reference <= mpmath.mpf(enclosure["upper"])


def _run(argv, capsys):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _exact_remove_k_of_t(alpha: int, sigma: Fraction, t: int, k: int, dps: int = 40) -> mpmath.mpf:
    """D_alpha(P_k || Q) of the k-of-t pair by expanding E[(mean over k-subsets of prod Y_i)^alpha]:
    every alpha-tuple of subsets gives the exponents n_i, and E[prod Y_i^{n_i}] = prod M_{n_i}."""
    with mpmath.workdps(dps):
        s2 = 1 / (mpmath.mpf(sigma.numerator) / sigma.denominator) ** 2
        subsets = list(itertools.combinations(range(t), k))
        total = mpmath.mpf(0)
        for choice in itertools.product(subsets, repeat=alpha):
            n = [0] * t
            for sub in choice:
                for i in sub:
                    n[i] += 1
            total += mpmath.exp(s2 * sum(x * (x - 1) for x in n) / 2)
        moment = total / len(subsets) ** alpha
        return mpmath.log(moment) / (alpha - 1)


@pytest.mark.parametrize(("t", "k"), [(3, 2), (4, 2), (5, 2), (5, 3), (6, 4)])
@pytest.mark.parametrize("sigma", [Fraction(1), Fraction(3, 2)])
def test_k_of_t_bound_is_above_the_exact_remove_divergence(t, k, sigma):
    alphas = [2, 3, 4]
    both = ra.rdp(sigma, t, alphas, selected=k, prec=128)
    rem = ra.rdp(sigma, t, alphas, selected=k, direction="remove", prec=128)
    for a, b, r in zip(alphas, both, rem, strict=True):
        exact = _exact_remove_k_of_t(a, sigma, t, k)
        assert r.lower() >= exact * (1 - mpmath.mpf(10) ** -30), (t, k, a, r, exact)
        assert b.lower() >= exact * (1 - mpmath.mpf(10) ** -30), (t, k, a, b, exact)
        # and never above the composition of k Gaussian mechanisms (k steps, no amplification)
        assert upper(b) <= Fraction(k * a) / (2 * sigma**2) * (1 + Fraction(1, 10**30)), (t, k, a, b)


@pytest.mark.parametrize("t", [1, 3, 10])
def test_every_step_is_k_gaussian_mechanisms(t):
    sigma = Fraction(7, 5)
    for direction in ("remove", "add", "both"):
        for a, v in zip(
            [2, 5, 17], ra.rdp(sigma, t, [2, 5, 17], selected=t, direction=direction, prec=128), strict=True
        ):
            assert contains(v, Fraction(t * a) / (2 * sigma**2), rel=Fraction(1, 10**30)), (t, direction, a, v)


def test_selected_validation():
    for bad in (0, 11, "x", 2.5):
        with pytest.raises(ValueError, match="selected"):
            ra.rdp(1, 10, [2], selected=bad)
    with pytest.raises(ValueError, match="selected must be <= steps_per_epoch"):
        RandomAllocationEvent(GaussianEvent(1), 10, 11)
    with pytest.raises(ValueError, match="steps_per_epoch"):
        BallsAndBinsEvent(GaussianEvent(1), 0)
    with pytest.raises(ValueError, match="dataset_size must be a multiple of batch_size"):
        ShuffleEvent(GaussianEvent(1), 7, 100)


def test_registry_reads_the_events():
    e = registry.sampled_event(GaussianEvent(1), "balls-and-bins", steps_per_epoch=1000)
    assert e == BallsAndBinsEvent(GaussianEvent(1), 1000)
    assert registry.lookup(e).guarantee
    k = registry.sampled_event(GaussianEvent(1), "random-allocation", steps_per_epoch=100, selected=3)
    assert k == RandomAllocationEvent(GaussianEvent(1), 100, 3)
    s = registry.sampled_event(GaussianEvent(1), "shuffle", batch_size=10, dataset_size=1000)
    assert not registry.lookup(s).guarantee and s.steps_per_epoch == 100
    # balls-and-bins: an attained pair; k of t: the blocks' composition, dominating only (pld/random_allocation.py)
    assert registry.pld_pair(e).tight and not registry.pld_pair(k).tight
    with pytest.raises(UnsupportedEventError, match="PLD accountant"):
        registry.pld_pair(s)


def test_rdp_of_epochs_and_json_echo(capsys):
    code, out, err = _run(
        ["rdp", "--sampling", "balls-and-bins", "--steps-per-epoch", "1000", "--sigma", "1", "--alpha", "2", "13",
         "--epochs", "10", "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    assert res["mechanism"] == {
        "noise": "gaussian",
        "sigma": "1",
        "sampling": "balls-and-bins",
        "steps_per_epoch": 1000,
        "epochs": 10,
        "adjacency": "add-remove",
    }
    assert res["guarantee"] is True
    for r in res["results"]:
        a = int(r["alpha"])
        with mpmath.workdps(60):
            reference = 10 * ref.remove_rdp_partition_sum(a, "1", 1000, dps=50)
        assert _within(r["rdp"], reference), (a, r, reference)


def test_epsilon_of_random_allocation_json(capsys):
    code, out, err = _run(
        ["epsilon", "--sampling", "random-allocation", "--selected", "2", "--steps-per-epoch", "100", "--sigma", "2",
         "--epochs", "3", "--delta", "1e-5", "--json", "--method", "rdp"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    assert res["mechanism"]["selected"] == 2 and res["mechanism"]["steps_per_epoch"] == 100
    assert res["mechanism"]["epochs"] == 3 and res["steps"] == 3
    # the RDP at the chosen order: at least the remove divergence summed over the two blocks of 50 steps
    # (partition-sum reference), at most 2 * 3 uses of the Gaussian mechanism (no amplification)
    a = int(res["alpha"])
    with mpmath.workdps(60):
        blocks = 3 * 2 * ref.remove_rdp_partition_sum(a, "2", 50, dps=50)
        assert mpmath.mpf(res["rdp"]["upper"]) >= blocks
    assert Fraction(res["rdp"]["upper"]) <= Fraction(6 * a, 8)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--sampling", "balls-and-bins", "--steps-per-epoch", "0", "--epochs", "2"],
         "--steps-per-epoch must be an integer in [1, 1e9]"),
        (["--sampling", "balls-and-bins", "--steps-per-epoch", "10", "--epochs", "0"],
         "(an integer >= 1 with --sampling balls-and-bins"),
        (["--sampling", "balls-and-bins", "--steps-per-epoch", "10", "--epochs", "1.5"], "--epochs must be an integer"),
        (["--sampling", "balls-and-bins", "--steps-per-epoch", "10"], "--epochs is required"),
        (["--sampling", "random-allocation", "--steps-per-epoch", "10", "--epochs", "2"], "--selected is required"),
        (["--sampling", "random-allocation", "--steps-per-epoch", "10", "--selected", "11", "--epochs", "2"],
         "--selected must be <= --steps-per-epoch"),
        (["--sampling", "poisson", "--q", "0.1", "--epochs", "2"], "--epochs applies to --sampling"),
        (["--sampling", "balls-and-bins", "--steps-per-epoch", "10", "--epochs", "2", "--steps", "3"], "disagree"),
        (["--sampling", "shuffle", "--batch-size", "7", "--dataset-size", "100", "--epochs", "2"], "multiple"),
        (["--sampling", "shuffle", "--batch-size", "10", "--dataset-size", "100", "--epochs", "2"], "no upper bound"),
        (["--sampling", "balls-and-bins", "--steps-per-epoch", "10", "--epochs", "2", "--method", "pld",
          "--sigma", "0.3"], "noise_multiplier 0.3"),
    ],
)  # fmt: skip
def test_bad_values_exit_2_with_one_line(argv, needle, capsys):
    code, out, err = _run(["epsilon", "--sigma", "1", "--delta", "1e-5", *argv], capsys)
    assert code == 2 and out == "" and needle in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_shuffle_certify_refused_and_rdp_is_a_lower_bound(tmp_path, capsys):
    path = tmp_path / "c.json"
    shuffle = ["--sampling", "shuffle", "--batch-size", "10", "--dataset-size", "1000", "--sigma", "1"]
    code, _out, err = _run(["certify", *shuffle, "--epochs", "2", "--delta", "1e-5", "--out", str(path)], capsys)
    assert code == 2 and "no upper bound" in err and not path.exists()
    code, out, err = _run(["rdp", *shuffle, "--alpha", "2", "--json"], capsys)
    assert code == 0, err
    res = json.loads(out)
    assert res["guarantee"] is False and res["bound"] == "shuffle-lower-bound"
    reference = ref.remove_rdp_partition_sum(2, "1", 100, dps=40)
    assert _within(res["results"][0]["rdp"], reference), (res, reference)


def _mp_event_probabilities(sigma, t, epochs, j, cap, dps=40):
    """P(S) and Q(S) of the event 'at least j epochs have max > cap' (mpmath, ncdf)."""
    with mpmath.workdps(dps):
        sigma = Fraction(sigma)
        s, c = mpmath.mpf(sigma.numerator) / sigma.denominator, mpmath.mpf(cap.numerator) / cap.denominator

        def tail(mean):
            return 1 - mpmath.ncdf((c - mean) / s) * mpmath.ncdf(c / s) ** (t - 1)

        def binom_tail(p):
            return mpmath.fsum(math.comb(epochs, i) * p**i * (1 - p) ** (epochs - i) for i in range(j, epochs + 1))

        return binom_tail(tail(2)), binom_tail(tail(1))


def _gaussian_epsilon(sigma, delta, dps=30):
    """Exact epsilon(delta) of the Gaussian mechanism with noise sigma (Balle & Wang 2018, Thm 8)."""
    with mpmath.workdps(dps):
        mu = 1 / mpmath.mpf(sigma)

        def d(eps):
            return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2) - delta

        return mpmath.findroot(d, (mpmath.mpf(0), mpmath.mpf(100)), solver="bisect")


@pytest.mark.parametrize(("sigma", "t", "epochs"), [(1, 1000, 1), (Fraction(1, 2), 100, 1), (1, 1000, 10), (2, 50, 4)])
def test_shuffle_epsilon_lower_bound(sigma, t, epochs):
    delta = Fraction(1, 10**5)
    res = shuffle_epsilon_lower_bound(sigma, t, delta, epochs=epochs)
    assert res is not None
    if res.family == "cube":
        p_s, q_s = _mp_event_probabilities(sigma, t, epochs, res.epochs_threshold, res.cap)
        with mpmath.workdps(40):
            value = mpmath.log((p_s - mpmath.mpf(1) / 10**5) / q_s)
        assert contains(res.epsilon, value, rel=Fraction(1, 10**25)), (res, value)
    else:  # the loss-sum family is never below the cube family (checked independently below)
        assert epochs > 1
    # a lower bound: below the epsilon of E epochs without amplification (sigma / sqrt(E))
    no_amplification = _gaussian_epsilon(mpmath.mpf(float(sigma)) / mpmath.sqrt(epochs), mpmath.mpf(1) / 10**5)
    assert res.epsilon.upper() < no_amplification, (res.epsilon, no_amplification)


def test_dpsgd_shuffle_reports_a_lower_bound_next_to_the_poisson_claim(capsys):
    code, out, err = _run(
        ["dpsgd", "--sampling", "shuffle", "--dataset-size", "60000", "--batch-size", "600", "--epochs", "1",
         "--sigma", "1.1", "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    assert res["guarantee"] is False and "epsilon" not in res
    lower = Fraction(res["epsilon_lower_bound"]["lower"])
    claim = Fraction(res["poisson_claim"]["epsilon"]["upper"])
    assert lower > claim  # the gap of Chua et al. 2024: Poisson accounting over-claims for shuffling
    code, out, err = _run(["dpsgd", "--sampling", "shuffle", "--epochs", "1"], capsys)
    assert code == 0 and "NO privacy guarantee" in out, err


def test_dpsgd_balls_and_bins_composes_epochs(capsys):
    code, out, err = _run(
        ["dpsgd", "--sampling", "balls-and-bins", "--dataset-size", "1000", "--batch-size", "1", "--epochs", "10",
         "--sigma", "1", "--json", "--method", "rdp"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    assert res["mechanism"]["steps_per_epoch"] == 1000 and res["steps"] == 10000
    # at the chosen order (13) the remove direction dominates: 10 epochs of the partition-sum reference
    a = int(res["alpha"])
    with mpmath.workdps(60):
        reference = 10 * ref.remove_rdp_partition_sum(a, "1", 1000, dps=50)
    assert _within(res["rdp"], reference), (a, res["rdp"], reference)


def _figure(source, tmp_path):
    from pathlib import Path

    from rigorous_rdp.paper_repro.samplers import epsilon_vs_epochs as fig

    if source == "committed":
        data = json.loads((Path(__file__).resolve().parents[1] / "figures" / "samplers.json").read_text())
        assert data["fast"] is False
        return data
    data = fig.main(tmp_path, fast=True)
    assert (tmp_path / "samplers.png").stat().st_size > 10_000
    return data


@pytest.mark.parametrize(
    "source", ["committed", pytest.param("fast", marks=pytest.mark.slow)], ids=["committed", "fast"]
)
def test_samplers_figure(source, tmp_path):
    """The figure's numbers: certified guarantees never below the shuffle lower bound's claims gap, the issue's
    Poisson PLD value at 10 epochs, and the Gaussian mechanism without amplification above the shuffle bound."""
    data = _figure(source, tmp_path)
    eps, epochs = data["epsilon"], data["epochs"]
    for i, e in enumerate(epochs):
        lower = eps["shuffle, LOWER bound"][i]
        assert lower > eps["Poisson, PLD (upper end)"][i] and lower > eps["Poisson, RDP"][i]  # Chua et al.'s gap
        no_amplification = _gaussian_epsilon(1 / mpmath.sqrt(e), mpmath.mpf(1) / 10**5)
        assert lower < no_amplification
        assert eps["balls-and-bins, RDP"][i] > 0
        lo, up = eps["balls-and-bins, PLD (lower end)"][i], eps["balls-and-bins, PLD (upper end)"][i]
        assert 0 < lo <= up <= eps["balls-and-bins, RDP"][i]  # the PLD bracket under the RDP bound
    if 10 in epochs:
        assert abs(eps["Poisson, PLD (upper end)"][epochs.index(10)] - 0.476) < 0.001  # issue 25: Poisson PLD 0.476
        # issue 25: the float peer PLD_accounting brackets balls-and-bins in [0.4565, 0.4744]; width <= 0.01
        lo, up = (
            eps["balls-and-bins, PLD (lower end)"][epochs.index(10)],
            eps["balls-and-bins, PLD (upper end)"][epochs.index(10)],
        )
        assert lo <= 0.4744 and up >= 0.4565 and up - lo <= 0.01


def test_dp_accounting_adapter_takes_random_allocation():
    dp_accounting = pytest.importorskip("dp_accounting")
    from rigorous_rdp.integrations.dp_accounting import (
        CertifiedPldAccountant,
        CertifiedRdpAccountant,
        NeighboringRelation,
        RandomAllocationDpEvent,
        to_rigorous_event,
    )

    event = RandomAllocationDpEvent(event=dp_accounting.GaussianDpEvent(1.0), num_selected=2, num_steps=100)
    ours, non_private = to_rigorous_event(event)
    assert ours == RandomAllocationEvent(GaussianEvent(1), 100, 2) and not non_private
    acc = CertifiedRdpAccountant(orders=[2, 8])
    assert acc.supports(event)
    acc.compose(event, 3)
    eps, order = acc.get_epsilon_and_optimal_order(1e-5)
    # the RDP at the order used: 3 epochs x 2 blocks of 50 steps, at least the remove divergence of the blocks
    with mpmath.workdps(40):
        blocks = 3 * 2 * ref.remove_rdp_partition_sum(int(order), "1", 50, dps=40)
        conv = (mpmath.log(1 / mpmath.mpf("1e-5")) + (order - 1) * mpmath.log1p(-1 / mpmath.mpf(order))
                - mpmath.log(order)) / (order - 1)  # fmt: skip
    assert eps >= float(blocks + conv) * (1 - 1e-12)
    # the PLD adapter takes it (the blocks' composition, pld/random_allocation.py); replace-one is refused
    assert CertifiedPldAccountant().supports(event)
    assert not CertifiedRdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE).supports(event)
    assert CertifiedRdpAccountant(neighboring_relation=NeighboringRelation.REPLACE_SPECIAL).supports(event)
    with pytest.raises(ValueError, match="num_selected must be <= num_steps"):
        to_rigorous_event(RandomAllocationDpEvent(event=dp_accounting.GaussianDpEvent(1.0), num_selected=3,
                                                  num_steps=2))  # fmt: skip


def test_shuffle_loss_sum_event_against_mpmath(monkeypatch):
    """The loss-sum family (two epochs, 40 bins): P(S) and Q(S) of the reported event recomputed in
    mpmath by summing over all pairs of bins (ncdf), and the value contained in the certified ball."""
    from rigorous_rdp.subsampling import shuffle

    monkeypatch.setattr(shuffle, "_BINS", 40)
    sigma, t, delta = Fraction(1), 1000, Fraction(1, 10**5)
    res = shuffle.shuffle_epsilon_lower_bound(sigma, t, delta, epochs=2)
    assert res is not None and res.family == "loss-sum" and res.event is not None
    cube = shuffle_epsilon_lower_bound(sigma, t, delta, epochs=1)
    assert res.epsilon.lower() > cube.epsilon.lower()  # two epochs leak more than one
    with mpmath.workdps(50):

        def cdf(c, mean):
            return mpmath.ncdf(c - mean) * mpmath.ncdf(c) ** (t - 1)

        cuts = [mpmath.mpf(c.numerator) / c.denominator for c in res.event.edges]

        def bins(mean):
            values = [mpmath.mpf(0)] + [cdf(c, mean) for c in cuts] + [mpmath.mpf(1)]
            return [values[i + 1] - values[i] for i in range(len(values) - 1)]

        pb, qb = bins(2), bins(1)
        labels = res.event.labels
        p_s = mpmath.fsum(
            pb[i] * pb[j]
            for i in range(len(pb))
            for j in range(len(pb))
            if labels[i] + labels[j] >= res.event.threshold
        )
        q_s = mpmath.fsum(
            qb[i] * qb[j]
            for i in range(len(qb))
            for j in range(len(qb))
            if labels[i] + labels[j] >= res.event.threshold
        )
        value = mpmath.log((p_s - mpmath.mpf(1) / 10**5) / q_s)
    assert contains(res.epsilon, value, rel=Fraction(1, 10**20)), (res.epsilon, value)


def test_order_out_of_range_names_the_range_and_the_plain_value(capsys):
    code, out, err = _run(
        ["rdp", "--sigma", "1", "--sampling", "balls-and-bins", "--steps-per-epoch", "10", "--alpha", "20000"], capsys
    )
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "in [2, 10000]" in err and "Found 20000." in err and "Fraction" not in err, err


def test_dpsgd_random_allocation_with_selected(capsys):
    """dpsgd --sampling random-allocation --selected K: t = N / B steps per epoch, each example in K of them."""
    code, out, err = _run(
        ["dpsgd", "--sampling", "random-allocation", "--selected", "2", "--dataset-size", "1000", "--batch-size",
         "100", "--sigma", "1", "--epochs", "2", "--json", "--method", "rdp"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    assert res["mechanism"]["selected"] == 2 and res["mechanism"]["steps_per_epoch"] == 10 and res["steps"] == 20
    # at the chosen order: at least 2 epochs x the remove divergence of the two blocks of 5 steps (partition-sum
    # reference), at most 2 epochs x 2 uses of the Gaussian mechanism (no amplification)
    a = int(res["alpha"])
    with mpmath.workdps(60):
        blocks = 2 * 2 * ref.remove_rdp_partition_sum(a, "1", 5, dps=50)
        assert mpmath.mpf(res["rdp"]["upper"]) >= blocks
    assert Fraction(res["rdp"]["upper"]) <= Fraction(2 * 2 * a, 2)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--sampling", "random-allocation"], "--selected is required with --sampling random-allocation"),
        (["--sampling", "random-allocation", "--selected", "101"], "--selected must be <= dataset-size / batch-size"),
        (["--sampling", "random-allocation", "--selected", "0"], "--selected must be an integer in [1, "),
        (["--sampling", "poisson", "--selected", "2"], "--selected applies to --sampling random-allocation"),
        (["--sampling", "balls-and-bins", "--selected", "2"], "--selected applies to --sampling random-allocation"),
    ],
)
def test_dpsgd_selected_bad_values_exit_2(argv, needle, capsys):
    code, out, err = _run(["dpsgd", "--epochs", "1", *argv], capsys)
    assert code == 2 and out == "" and needle in err and err.count("\n") == 1 and "Traceback" not in err, err


@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--delta", "1e-5"],
        ["delta", "--epsilon", "1"],
        ["certify", "--delta", "1e-5", "--out", "unused.json"],
        ["epsilon", "--delta", "1e-5", "--method", "pld"],
    ],
    ids=["epsilon", "delta", "certify", "epsilon-pld"],
)
def test_shuffle_refusals_say_first_that_no_upper_bound_is_known(argv, capsys, tmp_path, monkeypatch):
    """Every command that reports a guarantee refuses shuffling with the same message: first that no
    upper bound is known, then where the lower bounds are."""
    monkeypatch.chdir(tmp_path)
    shuffle = ["--sampling", "shuffle", "--batch-size", "10", "--dataset-size", "1000", "--epochs", "2"]
    code, out, err = _run([*argv, *shuffle, "--sigma", "1"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--sampling shuffle: no upper bound on the privacy of shuffling is known" in err, err
    assert err.index("no upper bound") < err.index("lower bound") < err.index("Chua et al."), err
    assert not (tmp_path / "unused.json").exists()


def test_shuffle_refusal_of_calibrate(capsys):
    code, out, err = _run(
        ["calibrate", "--sampling", "shuffle", "--batch-size", "10", "--dataset-size", "1000", "--epochs", "2",
         "--epsilon", "1", "--delta", "1e-5"],
        capsys,
    )  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--sampling shuffle: no upper bound on the privacy of shuffling is known" in err, err


@pytest.mark.parametrize(("sigma", "epochs"), [("1", 1), ("0.7", 1), ("2", 1), ("1", 10)])
def test_shuffle_lower_bound_reproduces_the_published_code(sigma, epochs):
    """Chua et al.'s published shuffle lower bound (their ShuffleAccountant, float; values recorded in the
    figure script with their source commit) at t = 1000, delta = 1e-5: one epoch (their cube test, caps on
    a grid of step 0.01) agrees to 1e-4 relative; over epochs (their PLD of the max statistic, losses rounded down) ours is at least
    theirs and within 0.5% of it."""
    from rigorous_rdp.paper_repro.samplers import shuffle_lower_bound as fig

    published = fig.PUBLISHED_BY_EPOCHS[epochs] if sigma == "1" else fig.PUBLISHED_BY_SIGMA[sigma]
    if epochs == 1:
        assert fig.PUBLISHED_BY_SIGMA.get(sigma, published) == published
    res = shuffle_epsilon_lower_bound(Fraction(sigma), 1000, Fraction(1, 10**5), epochs=epochs)
    assert res is not None
    ours = Fraction(float(res.epsilon.lower()))
    theirs = Fraction(published)
    if epochs == 1:
        assert abs(ours - theirs) <= theirs / 10**4, (sigma, ours, theirs)
    else:
        assert theirs * (1 - Fraction(1, 10**5)) <= ours <= theirs * Fraction(1005, 1000), (sigma, epochs, ours, theirs)


def test_samplers_shuffle_figure_committed():
    """The committed figure: every certified lower bound reproduces the published code's number (within
    1e-4 relative for one epoch, within 0.5% and not below it over epochs) and lies below the epsilon of
    the Gaussian mechanism without amplification."""
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "figures" / "samplers-shuffle.json").read_text())
    assert data["fast"] is False and data["published_code"].endswith("4c4299485319ed72ef782020c81784be5468924e")
    by_e, by_s = data["by_epochs"], data["by_sigma"]
    for e, ours, theirs in zip(by_e["epochs"], by_e["ours_lower"], by_e["published"], strict=True):
        if e == 1:
            assert abs(ours - theirs) <= theirs * 1e-4
        else:
            assert theirs * (1 - 1e-5) <= ours <= theirs * 1.005, (e, ours, theirs)
        assert ours < _gaussian_epsilon(1 / mpmath.sqrt(e), mpmath.mpf(1) / 10**5)
    for s, ours, theirs in zip(by_s["sigma"], by_s["ours_lower"], by_s["published"], strict=True):
        assert abs(ours - theirs) <= theirs * 1e-4, (s, ours, theirs)
        assert ours < _gaussian_epsilon(mpmath.mpf(s), mpmath.mpf(1) / 10**5)

"""Balls-and-bins in Opacus: the data loader (:func:`balls_and_bins_data_loader`, its
``BallsAndBinsSampler``) and the certified accountant ``"certified_balls_and_bins"``
(:mod:`rigorous_rdp.integrations.opacus`; needs the optional extra [opacus]).

Independent values: exact counts of the sampler's output (every epoch a partition of the
examples into t batches; each example's step uniform, checked by a binomial tail bound), the
epoch decomposition of a history by hand, and the certified RDP of the mpmath partition-sum
reference at the order the accountant reports.
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import mpmath
import pytest

from rigorous_rdp import GaussianEvent, RdpAccountant
from rigorous_rdp.arith import decimal_upper
from rigorous_rdp.integrations import opacus as certified
from rigorous_rdp.reference import random_allocation as ref
from rigorous_rdp.subsampling.random_allocation_scheme import BallsAndBinsEvent

torch = pytest.importorskip("torch")
pytest.importorskip("opacus")

pytestmark = [
    pytest.mark.opacus,
    pytest.mark.filterwarnings("ignore:Secure RNG turned off", "ignore:Full backward hook is firing"),
]


def _direct(sigma, t, epochs, delta="1e-5"):
    return RdpAccountant().compose(BallsAndBinsEvent(GaussianEvent(sigma), t), epochs).get_epsilon(delta)


def test_sampler_partitions_every_epoch_and_steps_are_uniform():
    n, t, rounds = 7, 3, 3000
    sampler = certified.BallsAndBinsSampler(
        num_samples=n, steps_per_epoch=t, generator=torch.Generator().manual_seed(11)
    )
    assert len(sampler) == t
    counts = [[0] * t for _ in range(n)]
    sizes = []
    for _ in range(rounds):
        batches = list(sampler)
        assert len(batches) == t
        flat = sorted(i for b in batches for i in b)
        assert flat == list(range(n))  # each example in exactly one step of the epoch
        for j, b in enumerate(batches):
            for i in b:
                counts[i][j] += 1
        sizes.append([len(b) for b in batches])
    # each (example, step) count is Binomial(rounds, 1/t): within 5 standard deviations
    # (Chebyshev: each cell fails with probability <= 1/25; all of them hold here)
    mean, sd = rounds / t, math.sqrt(rounds * (1 / t) * (1 - 1 / t))
    assert all(abs(c - mean) <= 5 * sd for row in counts for c in row), counts
    # the batch sizes vary (not a fixed-size sampler) and average n / t
    assert len({tuple(s) for s in sizes}) > 1
    assert abs(sum(s[0] for s in sizes) / rounds - n / t) <= 5 * math.sqrt(n * (1 / t) * (1 - 1 / t) / rounds)


def test_sampler_bad_input():
    with pytest.raises(ValueError, match=r"^steps_per_epoch must be an integer >= 1"):
        certified.BallsAndBinsSampler(num_samples=5, steps_per_epoch=0)
    with pytest.raises(ValueError, match=r"^num_samples must be an integer >= 1"):
        certified.BallsAndBinsSampler(num_samples=0, steps_per_epoch=2)


def test_epochs_of_a_history():
    acc = certified.CertifiedBallsAndBinsAccountant()
    acc.history = [(1.0, 0.25, 6), (0.8, 0.25, 1), (1.2, 0.25, 5)]
    # steps 1-4: epoch at 1.0; steps 5-8: 1.0, 1.0, 0.8, 1.2 -> min 0.8; steps 9-12: 1.2; nothing left
    # (a float noise is read as the smaller of its binary value and its shortest decimal)
    low = min(Fraction(1.2), Fraction("1.2"))
    assert acc.epochs() == [(1, 4, 1), (Fraction(4, 5), 4, 1), (low, 4, 1)]
    acc.history = [(1.0, 0.25, 9)]  # two whole epochs and a started one (counted whole)
    assert acc.epochs() == [(1, 4, 2), (1, 4, 1)]
    assert acc.get_epsilon(1e-5) == _direct(1, 4, 3).upper_float()
    acc.history = [(1.0, 0.25, 2), (1.0, 1 / 3, 2)]
    with pytest.raises(ValueError, match=r"^sample_rate must be the same 1/t in every step"):
        acc.epochs()
    acc.history = [(0.0, 0.25, 1)]
    assert acc.get_epsilon(1e-5) == math.inf


def test_accountant_bad_input_and_state():
    acc = certified.CertifiedBallsAndBinsAccountant()
    assert acc.mechanism() == certified.BALLS_AND_BINS_MECHANISM
    assert acc.get_epsilon(1e-5) == 0.0 and len(acc) == 0
    with pytest.raises(ValueError, match=r"^sample_rate must be 1/t for an integer t >= 1"):
        acc.step(noise_multiplier=1.0, sample_rate=0.3)
    with pytest.raises(ValueError, match=r"^noise_multiplier must be >= 0"):
        acc.step(noise_multiplier=-1.0, sample_rate=0.5)
    for _ in range(5):
        acc.step(noise_multiplier=1.0, sample_rate=1 / 3)
    assert acc.history == [(1.0, 1 / 3, 5)] and len(acc) == 5
    other = certified.CertifiedBallsAndBinsAccountant()
    other.load_state_dict(acc.state_dict())
    assert other.history == acc.history and other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    poisson = certified.CertifiedRDPAccountant()
    poisson.step(noise_multiplier=1.0, sample_rate=0.25)
    with pytest.raises(ValueError, match=r"^state_dict mechanism must be one of certified_balls_and_bins"):
        other.load_state_dict(poisson.state_dict())  # a Poisson history is another sampler
    assert pickle.loads(pickle.dumps(acc)).history == acc.history


def _train(seed, make_private, **options):
    """A linear model on 64 random points in R^4, batches of 16 -> t = 4 balls-and-bins steps per
    epoch, 2 epochs, trained by a PrivacyEngine with the certified balls-and-bins accountant."""
    from opacus import PrivacyEngine

    assert certified.register_balls_and_bins() == certified.BALLS_AND_BINS_MECHANISM
    assert certified.register_balls_and_bins() == certified.BALLS_AND_BINS_MECHANISM  # idempotent
    torch.manual_seed(seed)
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    plain = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    loader = certified.balls_and_bins_data_loader(plain, generator=torch.Generator().manual_seed(seed))
    assert len(loader) == 4 and isinstance(loader.batch_sampler, certified.BallsAndBinsSampler)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine(accountant=certified.BALLS_AND_BINS_MECHANISM)
    model, optimizer, loader = getattr(engine, make_private)(
        module=model, optimizer=optimizer, data_loader=loader, max_grad_norm=1.0, poisson_sampling=False, **options
    )
    assert isinstance(engine.accountant, certified.CertifiedBallsAndBinsAccountant)
    seen = []
    for _ in range(2):
        epoch = []
        for xb, yb in loader:
            epoch.append(len(xb))
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
        seen.append(epoch)
    assert [sum(e) for e in seen] == [64, 64]  # every example once per epoch
    return engine


def test_privacy_engine_trains_with_balls_and_bins():
    engine = _train(3, "make_private", noise_multiplier=1.1)
    assert len(engine.accountant) == 8
    eps = engine.get_epsilon(1e-5)
    assert eps == _direct("1.1", 4, 2).upper_float()
    # at the order the accountant uses, its RDP is at least 2 epochs of the exact remove direction
    # (mpmath partition sum, an independent path)
    res = engine.accountant.get_epsilon_and_order(1e-5)
    a = Fraction(res.order)
    assert a.denominator == 1  # random allocation is accounted at integer orders
    with mpmath.workdps(40):
        reference = 2 * ref.remove_rdp_partition_sum(int(a), "1.1", 4, dps=40)
        assert mpmath.mpf(decimal_upper(res.rdp.upper(), 30)) >= reference * (1 - mpmath.mpf(10) ** -30)
    print(f"trained 8 balls-and-bins steps, t=4, sigma=1.1: certified eps={eps!r}")


def test_make_private_with_epsilon_balls_and_bins():
    engine = _train(4, "make_private_with_epsilon", target_epsilon=8.0, target_delta=1e-5, epochs=2)
    assert len(engine.accountant) == 8
    assert engine.get_epsilon(1e-5) <= 8.0

"""The certified accountant inside Opacus (needs the optional extra [opacus]).

Independent values: Opacus's own RDP accountant (float code path), closed forms,
and the core accountant composed directly with exact rationals.
"""

from __future__ import annotations

import math
import pickle
import warnings
from fractions import Fraction

import pytest

from rigorous_rdp import GaussianEvent, PoissonSampledEvent, RdpAccountant
from rigorous_rdp.integrations import opacus as certified


def _steps(acc, count):
    """acc after count steps of noise multiplier 1 at sample rate 0.1."""
    for _ in range(count):
        acc.step(noise_multiplier=1.0, sample_rate=0.1)
    return acc


def _reloaded(acc, mechanism, into):
    """into after loading acc's state dict, which names mechanism; the history comes across whole."""
    state = acc.state_dict()
    assert state["mechanism"] == mechanism
    into.load_state_dict(state)
    assert into.history == acc.history
    return into


def test_imports_without_touching_opacus():
    # the module itself and the certified calibration need no opacus
    sigma = certified.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=1000)
    s = round(Fraction(sigma), 3)
    assert s == Fraction(1023, 1000) and s <= Fraction(sigma) < s + Fraction(1, 10**15)  # 4 digits, rounded up
    acc = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent(s), Fraction(1, 100)), 1000)
    assert acc.get_epsilon("1e-5").upper() <= 2
    # one unit less in the last digit provably misses the target
    low = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent(s - Fraction(1, 1000)), Fraction(1, 100)), 1000)
    assert low.get_epsilon("1e-5").lower() > 2


def test_get_noise_multiplier_bad_input():
    with pytest.raises(ValueError, match=r"^steps or epochs"):
        certified.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01)
    with pytest.raises(ValueError, match=r"^sample_rate must be in \(0, 1\]"):
        certified.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=1.5, steps=10)
    with pytest.raises(ValueError, match=r"^target_delta must be in \(0, 1\)\. Found 0\.0\.$"):
        certified.get_noise_multiplier(target_epsilon=2.0, target_delta=0.0, sample_rate=0.1, steps=10)
    with pytest.raises(ValueError, match=r"^target_delta must be in \(0, 1\)\. Found 2\.$"):
        certified.get_noise_multiplier(target_epsilon=2.0, target_delta=2, sample_rate=0.1, steps=10)
    with pytest.raises(ValueError, match=r"^target_epsilon must be > 0\. Found -1\.0\.$"):
        certified.get_noise_multiplier(target_epsilon=-1.0, target_delta=1e-5, sample_rate=0.1, steps=10)
    with pytest.raises(ValueError, match=r"^epochs must give at least one step"):
        certified.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, epochs=0.001)
    with pytest.raises(ValueError, match=r"^alpha must be > 1 \(a number in \(1, 1e100\]\)\. Found inf\.$"):
        certified.get_noise_multiplier(
            target_epsilon=2.0,
            target_delta=1e-5,
            sample_rate=0.01,
            steps=10,
            accountant=RdpAccountant(orders=[2.0, math.inf]),
        )
    with pytest.raises(ValueError, match=r"^orders is an option of the accountant: pass accountant=RdpAccountant"):
        certified.get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=10, orders=[2])


# ---------------------------------------------------------------------------
# with opacus
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def opacus():
    return pytest.importorskip("opacus")


@pytest.mark.opacus
def test_is_an_opacus_accountant(opacus):
    from opacus.accountants import IAccountant, RDPAccountant

    acc = certified.CertifiedRDPAccountant()
    assert isinstance(acc, IAccountant) and acc.mechanism() == certified.MECHANISM
    assert acc.get_epsilon(1e-5) == 0.0 and len(acc) == 0
    ref = RDPAccountant()
    for _ in range(300):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
        ref.step(noise_multiplier=1.1, sample_rate=0.01)
    acc.step(noise_multiplier=2.0, sample_rate=0.02)
    ref.step(noise_multiplier=2.0, sample_rate=0.02)
    assert acc.history == ref.history == [(1.1, 0.01, 300), (2.0, 0.02, 1)]
    assert len(acc) == 301  # steps (Opacus's RDPAccountant returns the number of history entries)
    eps = acc.get_epsilon(1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eps_ref = ref.get_epsilon(1e-5)
        eps_ref_grid = ref.get_epsilon(1e-5, alphas=RDPAccountant.DEFAULT_ALPHAS)
    assert eps <= eps_ref
    # the same orders as Opacus: the same formulas (Opacus is float; agreement to 1e-9)
    eps_grid = acc.get_epsilon(1e-5, alphas=RDPAccountant.DEFAULT_ALPHAS)
    assert abs(eps_grid - eps_ref_grid) <= 1e-9 * eps_ref_grid
    # the float is the rounded-up end of the certified enclosure of the exact composition
    exact = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent("1.1"), Fraction(0.01)), 300)
    exact.compose(PoissonSampledEvent(GaussianEvent(2), Fraction(0.02)), 1)
    assert eps == exact.get_epsilon("1e-5").upper_float()
    res = acc.get_epsilon_and_order(1e-5)
    assert res.epsilon.upper_float() == eps and res.order > 1


def _gaussian_cks_minimum(s, T, delta_exp):
    """min over real alpha > 1 of T alpha/(2 s^2) + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1)
    (CKS 2020 Prop. 12 on the Gaussian mechanism's RDP), in mpmath, and the minimising alpha."""
    import mpmath

    with mpmath.workdps(40):
        rdp = mpmath.mpf(T) / (2 * mpmath.mpf(s) ** 2)
        log_delta = -delta_exp * mpmath.log(10)

        def f(a):
            return rdp * a + mpmath.log1p(-1 / a) - (log_delta + mpmath.log(a)) / (a - 1)

        a_star = mpmath.findroot(lambda a: mpmath.diff(f, a), 4)
        return Fraction(mpmath.nstr(f(a_star), 35)), a_star


@pytest.mark.opacus
def test_gaussian_closed_form_through_rate_one(opacus):
    # sample_rate 1: every step is the Gaussian mechanism; the continuous search over real orders
    # reaches the closed-form minimum of the CKS conversion to 1e-9, and never goes below it
    eps_star, _ = _gaussian_cks_minimum(3, 50, 6)  # 14.2599455115...
    acc = certified.CertifiedRDPAccountant(accountant=RdpAccountant(conversion="cks"))
    for _ in range(50):
        acc.step(noise_multiplier=3.0, sample_rate=1.0)
    res = acc.get_epsilon_and_order(1e-6)
    up, lo = Fraction(res.epsilon.to_json()["upper"]), Fraction(res.epsilon.to_json()["lower"])
    assert eps_star * (1 - Fraction(1, 10**30)) <= up <= eps_star * (1 + Fraction(1, 10**9))
    assert lo <= up <= lo * (1 + Fraction(1, 10**12))
    assert acc.get_epsilon(1e-6) <= float(eps_star) * (1 + 1e-9)  # the default ("best") is no worse


@pytest.mark.opacus
def test_state_dict_round_trip_and_opacus_histories(opacus):
    from opacus.accountants import RDPAccountant

    acc = _steps(certified.CertifiedRDPAccountant(), 5)
    other = _reloaded(acc, certified.MECHANISM, certified.CertifiedRDPAccountant())
    assert other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    ref = _steps(RDPAccountant(), 5)
    other.load_state_dict(ref.state_dict())  # an Opacus RDP checkpoint means the same steps
    assert other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    with pytest.raises(ValueError, match="mechanism must be one of"):
        other.load_state_dict({"history": [], "mechanism": "other"})
    with pytest.raises(ValueError, match=r"^sample_rate must be in \[0, 1\]"):
        other.load_state_dict({"history": [(1.0, 2.0, 3)], "mechanism": "rdp"})
    with pytest.raises(ValueError, match=r"^state_dict history must be a list"):
        other.load_state_dict({"history": None, "mechanism": "rdp"})
    assert pickle.loads(pickle.dumps(acc)).history == acc.history


@pytest.mark.opacus
def test_step_bad_input_and_non_private(opacus):
    acc = certified.CertifiedRDPAccountant()
    with pytest.raises(ValueError, match=r"^noise_multiplier must be >= 0"):
        acc.step(noise_multiplier=-1.0, sample_rate=0.1)
    with pytest.raises(ValueError, match=r"^sample_rate must be a finite number"):
        acc.step(noise_multiplier=1.0, sample_rate=math.nan)
    for delta in (0.0, 2.0, -1.0):  # checked before any step too
        with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)"):
            acc.get_epsilon(delta)
    with pytest.raises(ValueError, match=r"^alphas must be a list of finite numbers > 1"):
        acc.get_epsilon(1e-5, alphas=[math.nan])
    acc.step(noise_multiplier=0.0, sample_rate=0.1)  # no noise: not private
    assert acc.get_epsilon(1e-5) == math.inf


@pytest.mark.opacus
def test_registered_name_resolves_in_opacus(opacus):
    from opacus.accountants import create_accountant
    from opacus.accountants.utils import get_noise_multiplier as opacus_get_noise_multiplier

    assert certified.register() == certified.MECHANISM
    assert certified.register() == certified.MECHANISM  # idempotent
    assert isinstance(create_accountant(certified.MECHANISM), certified.CertifiedRDPAccountant)
    # Opacus's own bisection, driven by the certified epsilon, meets the target (certified) ...
    sigma_opacus = opacus_get_noise_multiplier(
        target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=1000, accountant=certified.MECHANISM
    )
    acc = certified.CertifiedRDPAccountant()
    acc.history = [(sigma_opacus, 0.01, 1000)]
    assert acc.get_epsilon(1e-5) <= 2.0
    # ... and the certified replacement does not overshoot it: its proven miss is below it
    cal = certified.calibrate_noise_multiplier(
        target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=1000, sigma_digits=6
    )
    assert cal.sigma_lower < sigma_opacus


_QUIET = pytest.mark.filterwarnings("ignore:Secure RNG turned off", "ignore:Full backward hook is firing")


def _train_privately(torch, seed, label_column, make_private, train_epochs=2, **options):
    """A PrivacyEngine with the certified accountant trains a linear model with SGD for ``train_epochs`` on 64
    random points in R^4 labelled by the sign of one coordinate, batches of 16 (q = 1/4);
    ``make_private`` names the engine's method, ``options`` its privacy arguments. Returns the engine."""
    from opacus import PrivacyEngine

    certified.register()
    torch.manual_seed(seed)
    x = torch.randn(64, 4)
    y = (x[:, label_column] > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine(accountant=certified.MECHANISM)
    model, optimizer, loader = getattr(engine, make_private)(
        module=model, optimizer=optimizer, data_loader=loader, max_grad_norm=1.0, **options
    )
    assert isinstance(engine.accountant, certified.CertifiedRDPAccountant)
    for _ in range(train_epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
    return engine


@pytest.mark.opacus
@_QUIET
def test_privacy_engine_trains_with_certified_accountant(opacus):
    torch = pytest.importorskip("torch")
    from opacus.accountants import RDPAccountant

    engine = _train_privately(torch, 0, 0, "make_private", noise_multiplier=1.1)
    assert len(engine.accountant) == 8  # 2 epochs of len(loader) = 4 Poisson batches
    eps = engine.get_epsilon(1e-5)
    ref = RDPAccountant()
    ref.history = list(engine.accountant.history)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert eps <= ref.get_epsilon(1e-5)
    direct = RdpAccountant().compose(PoissonSampledEvent(GaussianEvent("1.1"), Fraction(1, 4)), 8)
    assert eps == direct.get_epsilon("1e-5").upper_float()
    print(f"trained 8 steps, q=1/4, sigma=1.1: certified eps={eps!r} (Opacus rdp: {ref.get_epsilon(1e-5)!r})")


@pytest.mark.opacus
@_QUIET
def test_make_private_with_epsilon(opacus):
    torch = pytest.importorskip("torch")
    engine = _train_privately(torch, 1, 1, "make_private_with_epsilon", target_epsilon=8.0, target_delta=1e-5, epochs=2)
    assert len(engine.accountant) == 8
    assert engine.get_epsilon(1e-5) <= 8.0


# ---------------------------------------------------------------------------
# the certified PLD accountant ("certified_pld")
# ---------------------------------------------------------------------------


def _gaussian_delta(mu, eps):
    """delta(eps) of N(mu, 1) vs N(0, 1) (Balle & Wang 2018, Thm 8), in mpmath."""
    import mpmath

    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


@pytest.mark.opacus
def test_pld_is_an_opacus_accountant_and_brackets_the_gaussian(opacus):
    import mpmath
    from opacus.accountants import IAccountant

    acc = certified.CertifiedPLDAccountant()
    assert isinstance(acc, IAccountant) and acc.mechanism() == certified.PLD_MECHANISM == "certified_pld"
    assert acc.get_epsilon(1e-5) == 0.0 and len(acc) == 0
    for _ in range(10):  # sample_rate 1: ten Gaussian steps, one Gaussian with mu = sqrt(10)/2
        acc.step(noise_multiplier=2.0, sample_rate=1.0)
    assert acc.history == [(2.0, 1.0, 10)] and len(acc) == 10
    with mpmath.workdps(40):
        ref = mpmath.findroot(lambda e: _gaussian_delta(mpmath.sqrt(10) / 2, e) - mpmath.mpf("1e-5"), 4)
    lo, up = acc.get_epsilon_bracket(1e-5)
    assert lo <= float(ref) <= up and up - lo <= 0.011
    assert acc.get_epsilon(1e-5) == up
    eps, order = acc.get_privacy_spent(delta=1e-5)
    assert eps == up and math.isnan(order)


@pytest.mark.opacus
def test_pld_bracket_overlaps_opacus_prv_and_is_below_rdp(opacus):
    from opacus.accountants import PRVAccountant, RDPAccountant

    acc = certified.CertifiedPLDAccountant()
    prv, rdp = PRVAccountant(), RDPAccountant()
    for a in (acc, prv, rdp):
        a.history = [(1.1, 0.01, 1000)]
    lo, up = acc.get_epsilon_bracket(1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eps_prv = prv.get_epsilon(1e-5, eps_error=0.01)  # a float estimate, within about 0.01
        eps_rdp = rdp.get_epsilon(1e-5)
    assert lo - 0.02 <= eps_prv <= up + 0.02
    assert up < eps_rdp  # the true optimum is below the RDP route's bound


@pytest.mark.opacus
def test_pld_state_dict_and_bad_input(opacus):
    acc = _steps(certified.CertifiedPLDAccountant(), 3)
    rdp = _reloaded(acc, certified.PLD_MECHANISM, certified.CertifiedRDPAccountant())  # the same steps
    other = certified.CertifiedPLDAccountant()
    other.load_state_dict(rdp.state_dict())
    assert other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    assert pickle.loads(pickle.dumps(acc)).history == acc.history
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)"):
        acc.get_epsilon(0.0)
    with pytest.raises(ValueError, match=r"^width must be in \(0, 10\]"):
        certified.CertifiedPLDAccountant(width=20.0)
    acc.step(noise_multiplier=0.0, sample_rate=0.1)
    assert acc.get_epsilon(1e-5) == math.inf


@pytest.mark.opacus
@_QUIET
def test_privacy_engine_trains_with_certified_pld(opacus):
    torch = pytest.importorskip("torch")
    from opacus import PrivacyEngine
    from opacus.accountants import create_accountant

    assert certified.register_pld() == "certified_pld"
    assert certified.register_pld() == "certified_pld"  # idempotent
    assert isinstance(create_accountant("certified_pld"), certified.CertifiedPLDAccountant)
    torch.manual_seed(2)
    x = torch.randn(64, 4)
    y = (x[:, 2] > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    engine = PrivacyEngine(accountant="certified_pld")
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, max_grad_norm=1.0, noise_multiplier=1.1
    )
    assert isinstance(engine.accountant, certified.CertifiedPLDAccountant)
    for _ in range(2):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
    assert len(engine.accountant) == 8  # 2 epochs of 4 Poisson batches (q = 1/4)
    eps = engine.get_epsilon(1e-5)
    lo, up = engine.accountant.get_epsilon_bracket(1e-5)
    rdp = certified.CertifiedRDPAccountant()
    rdp.history = list(engine.accountant.history)
    assert eps == up and 0 < lo <= up < rdp.get_epsilon(1e-5)


@pytest.mark.opacus
@_QUIET
def test_make_private_with_epsilon_certified_pld(opacus):
    # Opacus's own noise search calls the accountant by its mechanism() name: "certified_pld"
    torch = pytest.importorskip("torch")
    from opacus import PrivacyEngine

    certified.register_pld()
    torch.manual_seed(3)
    x = torch.randn(64, 4)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, (x[:, 0] > 0).long()), batch_size=16)
    model = torch.nn.Linear(4, 2)
    engine = PrivacyEngine(accountant="certified_pld")
    model, optimizer, loader = engine.make_private_with_epsilon(
        module=model,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        data_loader=loader,
        target_epsilon=3.0,
        target_delta=1e-5,
        epochs=2,
        max_grad_norm=1.0,
    )
    for _ in range(2):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
    assert len(engine.accountant) == 8
    assert engine.get_epsilon(1e-5) <= 3.0

r"""A certified accountant for Opacus's ``PrivacyEngine``, and a certified ``get_noise_multiplier``.

:class:`CertifiedRDPAccountant` implements ``opacus.accountants.IAccountant``
(``step``, ``get_epsilon``, ``__len__``, ``mechanism``, ``history``,
``state_dict`` / ``load_state_dict``, and the optimizer hook it inherits).  Each
``history`` entry ``(noise_multiplier, sample_rate, num_steps)`` is
``num_steps`` Poisson-subsampled Gaussian steps with add/remove adjacency, the
mechanism Opacus accounts for; the epsilon is the upper end of a certified
enclosure from :class:`rigorous_rdp.accountant.RdpAccountant`, rounded up to a
float (never ``float(arb)``).  Opacus finds accountants by name, so
:func:`register` adds this one under :data:`MECHANISM`::

    from opacus import PrivacyEngine
    from rigorous_rdp.integrations import opacus as certified

    certified.register()                                   # once per process
    engine = PrivacyEngine(accountant=certified.MECHANISM)  # "certified_rdp"
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer,
        data_loader=loader, noise_multiplier=1.1, max_grad_norm=1.0)
    ...                                                    # train as usual
    engine.get_epsilon(1e-5)                               # certified upper end

:class:`CertifiedPLDAccountant` (``"certified_pld"``, made known by :func:`register_pld`)
keeps the same history and reports the upper end of a certified *bracket of the true
optimal* epsilon of the composed steps (:class:`rigorous_rdp.pld.PldAccountant`), below the
RDP route's bound; ``get_epsilon_bracket(delta)`` gives both ends, rounded outward.  It costs
a fraction of a second to seconds per query (the RDP one milliseconds)::

    certified.register_pld()
    engine = PrivacyEngine(accountant="certified_pld")

``PrivacyEngine.make_private_with_epsilon`` then works too: Opacus's own
bisection calls this accountant by its name, so the noise it picks meets the
target *with the certified epsilon* (within Opacus's ``epsilon_tolerance``
below it).  :func:`get_noise_multiplier` (same signature as Opacus's) returns
the smallest noise multiplier, to ``sigma_digits`` significant digits, whose
certified epsilon meets the target, and proves that the next smaller one does
not (:func:`rigorous_rdp.calibrate.calibrate_sigma`); pass its result to
``make_private``.

**Balls-and-bins** (Opacus has no such loader): :func:`balls_and_bins_data_loader` turns a data
loader into one whose batch sampler (:class:`BallsAndBinsSampler`) puts every example, each epoch,
into one of ``steps_per_epoch`` = t steps chosen uniformly at random and independently of the
others (Chua et al., AISTATS 2025: shuffle-like loading with nearly equal batch sizes), and
:class:`CertifiedBallsAndBinsAccountant` (``"certified_balls_and_bins"``, made known by
:func:`register_balls_and_bins`) accounts it with the certified RDP of balls-and-bins
(:mod:`rigorous_rdp.subsampling.random_allocation`): Opacus's ``sample_rate`` = 1/t gives t, and
every started epoch counts as a whole one::

    certified.register_balls_and_bins()
    loader = certified.balls_and_bins_data_loader(loader)   # t = len(loader) steps per epoch
    engine = PrivacyEngine(accountant="certified_balls_and_bins")
    model, optimizer, loader = engine.make_private(module=model, optimizer=optimizer,
        data_loader=loader, noise_multiplier=1.1, max_grad_norm=1.0, poisson_sampling=False)

Opacus is imported lazily: this module imports without it, and
:class:`CertifiedRDPAccountant` (a subclass of ``IAccountant``) is built on
first use.  :func:`get_noise_multiplier` needs no Opacus at all.

Floats from Opacus (``sample_rate = 1 / len(data_loader)``, noise multipliers)
are read on the safe side: the larger of the binary value and the shortest
decimal for the sampling rate, the smaller for the noise and the target
(:mod:`._inputs`).  Opacus's accountants account Poisson sampling even when
``poisson_sampling=False`` shuffles into fixed-size batches; so does this one
(the fixed-size bounds of the toolkit are in :mod:`rigorous_rdp.events` /
:mod:`.dp_accounting` for callers who account such batches themselves).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from copy import deepcopy
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..accountant import EpsilonResult, RdpAccountant
from ..arith import Certified
from ..calibrate import DEFAULT_SIGMA_DIGITS, SigmaCalibration, calibrate_sigma
from ..events import GaussianEvent, PoissonSampledEvent
from ..validation import integer_at_least
from ._inputs import read_orders, weaker_reading

if TYPE_CHECKING:
    from ..pld.accountant import PldEpsilonResult

__all__ = [
    "BALLS_AND_BINS_MECHANISM",
    "MECHANISM",
    "PLD_MECHANISM",
    "BallsAndBinsSampler",  # noqa: F822 -- defined lazily by the module __getattr__ (the class needs torch)
    "CertifiedBallsAndBinsAccountant",  # noqa: F822 -- defined lazily by the module __getattr__ (needs opacus)
    "CertifiedPLDAccountant",  # noqa: F822 -- defined lazily by the module __getattr__ (the class needs opacus)
    "CertifiedRDPAccountant",  # noqa: F822 -- defined lazily by the module __getattr__ (the class needs opacus)
    "balls_and_bins_data_loader",
    "calibrate_noise_multiplier",
    "get_noise_multiplier",
    "register",
    "register_balls_and_bins",
    "register_pld",
]

#: the name under which :func:`register` makes the accountant known to Opacus
MECHANISM = "certified_rdp"

#: the name under which :func:`register_pld` makes the PLD accountant known to Opacus
PLD_MECHANISM = "certified_pld"

#: the name under which :func:`register_balls_and_bins` makes the balls-and-bins accountant known to Opacus
BALLS_AND_BINS_MECHANISM = "certified_balls_and_bins"

#: mechanisms whose ``state_dict`` history has the same meaning (noise, Poisson rate, steps)
_COMPATIBLE_HISTORIES = (MECHANISM, PLD_MECHANISM, "rdp", "prv", "gdp")


def _orders(alphas: Iterable[object] | None, name: str = "orders") -> list[object] | None:
    # any order gives a valid bound: read float orders as their shortest decimal
    return read_orders(alphas, name)


def _step_parameters(
    noise_multiplier: object, sample_rate: object, num_steps: object = 1
) -> tuple[Fraction, Fraction, int]:
    s = weaker_reading(noise_multiplier, "noise_multiplier", smaller=True)
    if s < 0:
        raise ValueError(f"noise_multiplier must be >= 0. Found {noise_multiplier!r}.")
    q = weaker_reading(sample_rate, "sample_rate", smaller=False)
    if not 0 <= q <= 1:
        raise ValueError(f"sample_rate must be in [0, 1]. Found {sample_rate!r}.")
    n = integer_at_least(num_steps, "num_steps", 0)
    return s, q, n


def _check_delta(delta: object, name: str = "delta") -> Fraction:
    d = weaker_reading(delta, name, smaller=True)
    if not 0 < d < 1:
        raise ValueError(f"{name} must be in (0, 1). Found {delta!r}.")
    return d


class _CertifiedRDPAccountantImpl:
    r"""The methods of :class:`CertifiedRDPAccountant` (which adds the Opacus base class).

    Args:
        accountant: the template of the accounting options (default ``RdpAccountant()``:
            dp-accounting's order grid, which contains Opacus's, a continuous order search,
            the ``"best"`` conversion; Opacus uses Balle et al. 2020, Thm 21, which is
            ``conversion="balle"`` = ``"cks"``); only its options are used.
    """

    #: the mechanisms whose saved histories :meth:`load_state_dict` accepts
    compatible: tuple[str, ...] = _COMPATIBLE_HISTORIES

    def __init__(self, *, accountant: RdpAccountant | None = None):
        self.template = RdpAccountant.template(accountant).fresh()
        #: list of ``(noise_multiplier, sample_rate, num_steps)``, as in Opacus
        self.history: list[tuple[Any, Any, int]] = []

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step; consecutive identical steps are merged, as Opacus does.

        Raises:
            ValueError: noise_multiplier < 0, sample_rate outside [0, 1], NaN or inf.
        """
        _step_parameters(noise_multiplier, sample_rate)
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        """Number of steps taken (Opacus's ``IAccountant`` contract)."""
        return sum(int(entry[2]) for entry in self.history)

    # -- certified epsilon ---------------------------------------------------

    def _accountant(self, alphas: Sequence[object] | None) -> tuple[RdpAccountant, bool]:
        t = self.template
        restricted = None if alphas is None else _orders(alphas, "alphas")
        acc = (
            t.fresh()
            if restricted is None
            else RdpAccountant(
                restricted, continuous=False, conversion=t.conversion, digits=t.digits, max_prec=t.max_prec
            )
        )
        non_private = False
        for entry in self.history:
            s, q, n = _step_parameters(*entry)
            if q == 0 or n == 0:
                continue
            if s == 0:
                non_private = True
                continue
            acc.compose(PoissonSampledEvent(GaussianEvent(s), q), n)
        return acc, non_private

    def get_epsilon_and_order(self, delta: object, alphas: Sequence[object] | None = None) -> EpsilonResult:
        """The certified result for ``delta``: enclosure, order, conversion and total RDP."""
        d = _check_delta(delta)
        acc, non_private = self._accountant(alphas)
        if non_private:
            from flint import arb

            return EpsilonResult(Certified(arb("inf"), 0), None, "non-private", None, d)
        return acc.get_epsilon_and_order(d)

    def get_privacy_spent(self, *, delta: float, alphas: Sequence[object] | None = None) -> tuple[float, float]:
        """``(epsilon, order)``: the certified upper end rounded up, and the order used."""
        _check_delta(delta)
        _orders(alphas, "alphas")
        if not self.history:
            return 0.0, 0.0  # Opacus's RDPAccountant returns (0, 0) before any step
        res = self.get_epsilon_and_order(delta, alphas)
        return res.epsilon.upper_float(), (math.inf if res.order is None else float(res.order))

    def get_epsilon(self, delta: float, alphas: Sequence[object] | None = None, **kwargs: Any) -> float:
        """Certified epsilon spent so far for ``delta`` (upper end, rounded up).

        ``alphas`` restricts the search to those orders (no continuous search),
        as Opacus's ``RDPAccountant``; other keyword arguments are accepted and
        ignored, as Opacus passes its own through.
        """
        return self.get_privacy_spent(delta=delta, alphas=alphas)[0]

    # -- state ---------------------------------------------------------------

    def state_dict(self, destination: Any = None) -> Any:
        if destination is None:
            destination = OrderedDict()
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: Any) -> None:
        """Load a state saved by this accountant or by Opacus's ``rdp``, ``prv`` or ``gdp``
        accountants (their histories mean the same steps).

        Raises:
            ValueError: empty or malformed state, another mechanism, or invalid steps.
        """
        if not state_dict:
            raise ValueError("state_dict is empty or None; it cannot be loaded into the accountant.")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict must have the key `{key}`. Found keys {sorted(state_dict)}.")
        if state_dict["mechanism"] not in self.compatible:
            raise ValueError(
                f"state_dict mechanism must be one of {', '.join(self.compatible)}. Found {state_dict['mechanism']!r}."
            )
        raw = state_dict["history"]
        if not isinstance(raw, (list, tuple)) or not all(isinstance(e, (list, tuple)) for e in raw):
            raise ValueError(
                f"state_dict history must be a list of (noise_multiplier, sample_rate, num_steps). Found {raw!r}."
            )
        history = [tuple(entry) for entry in raw]
        for entry in history:
            if len(entry) != 3:
                raise ValueError(
                    f"history entries must be (noise_multiplier, sample_rate, num_steps). Found {entry!r}."
                )
            _step_parameters(*entry)
        self.history = history


class _CertifiedPLDAccountantImpl(_CertifiedRDPAccountantImpl):
    r"""The methods of :class:`CertifiedPLDAccountant` (which adds the Opacus base class).

    The same ``history`` and ``state_dict`` as the RDP accountant; the epsilon is the upper end
    of the certified bracket of the *true optimal* epsilon of the composed Poisson-subsampled
    Gaussian steps (add/remove adjacency), from :class:`rigorous_rdp.pld.PldAccountant`, rounded
    up to a float; :meth:`get_epsilon_bracket` gives both ends, rounded outward.

    Floats are read on the safe side, as by the RDP accountant: the upper end holds for both
    meanings of a float (binary value, shortest decimal), the lower end for the weaker one.

    Args:
        width: requested width of the epsilon bracket (default 0.01); the grid options
            ``grid``, ``max_grid``, ``max_length`` are those of :class:`~rigorous_rdp.pld.PldAccountant`.
            Only the tightness of the bracket depends on them, never its validity.
    """

    def __init__(self, *, width: object = None, **grid_options: Any):
        from ..pld.accountant import DEFAULT_WIDTH, PldAccountant

        w = DEFAULT_WIDTH if width is None else (Fraction(repr(width)) if isinstance(width, float) else width)
        PldAccountant(width=w, **grid_options)  # validates the options now (ValueError naming one)
        self._pld_options: dict[str, Any] = {"width": w, **grid_options}
        self.history: list[tuple[Any, Any, int]] = []

    @classmethod
    def mechanism(cls) -> str:
        return PLD_MECHANISM

    def certified_epsilon(self, delta: object) -> PldEpsilonResult | None:
        """The certified result for ``delta`` (``None`` if a step had noise 0: epsilon is infinite)."""
        from ..pld.accountant import PldAccountant

        d = _check_delta(delta)
        acc = PldAccountant(**self._pld_options)
        for entry in self.history:
            s, q, n = _step_parameters(*entry)
            if q == 0 or n == 0:
                continue
            if s == 0:
                return None
            acc.compose(PoissonSampledEvent(GaussianEvent(s), q), n)
        return acc.get_epsilon_result(d)

    def get_epsilon_bracket(self, delta: float) -> tuple[float, float]:
        """``(lower, upper)`` around the true optimal epsilon spent so far, rounded outward."""
        res = self.certified_epsilon(delta)
        if res is None:
            return math.inf, math.inf
        b = res.epsilon
        lo, up = getattr(b, "lo_exact", None), getattr(b, "up_exact", None)
        if lo is None or up is None:  # a closed-form result holds a ball: its ends rounded outward
            return b.lower_float(), b.upper_float()
        return _float_down(lo), _float_up(up)

    def get_epsilon(self, delta: float, alphas: Sequence[object] | None = None, **kwargs: Any) -> float:
        """Certified epsilon spent so far for ``delta`` (upper end of the bracket, rounded up).

        ``alphas`` and other keyword arguments are accepted and ignored (Opacus passes its
        own through; orders mean nothing to a PLD accountant).
        """
        if not self.history:
            _check_delta(delta)
            return 0.0
        return self.get_epsilon_bracket(delta)[1]

    def get_privacy_spent(self, *, delta: float, alphas: Sequence[object] | None = None) -> tuple[float, float]:
        """``(epsilon, nan)``: no order is involved in a PLD bound."""
        return self.get_epsilon(delta), math.nan


def _steps_per_epoch(sample_rate: object) -> int:
    """t from Opacus's ``sample_rate`` = 1/t (``1 / len(data_loader)``): the integer t with
    ``|t * sample_rate - 1| <= 2^-50`` (the float 1/t is within one rounding of it)."""
    q = weaker_reading(sample_rate, "sample_rate", smaller=False)
    t = round(1 / q) if q > 0 else 0
    if not 0 < q <= 1 or abs(t * q - 1) > Fraction(1, 2**50):
        raise ValueError(
            "sample_rate must be 1/t for an integer t >= 1 (balls-and-bins: t steps per epoch, "
            f"sample_rate = 1 / len(data_loader)). Found {sample_rate!r}."
        )
    return t


class _CertifiedBallsAndBinsAccountantImpl(_CertifiedRDPAccountantImpl):
    r"""The methods of :class:`CertifiedBallsAndBinsAccountant` (which adds the Opacus base class).

    The ``history`` of Opacus, ``(noise_multiplier, sample_rate, num_steps)``, read for a
    balls-and-bins loader (:func:`balls_and_bins_data_loader`): ``sample_rate`` = 1/t, t steps per
    epoch (the same t in every entry), the steps consecutive from the start of an epoch.  Each
    epoch is one :class:`~rigorous_rdp.subsampling.random_allocation_scheme.BallsAndBinsEvent` at
    the smallest noise multiplier of its steps (a step with more noise is a post-processing of one
    with less: add independent noise), and a started epoch counts as a whole one (its released
    steps are a prefix of the epoch's outputs); the epsilon is the upper end of the certified RDP
    enclosure of the composed epochs (add/remove adjacency), rounded up.

    Args:
        accountant: the template of the accounting options, as for the RDP accountant.
    """

    compatible = (BALLS_AND_BINS_MECHANISM,)

    @classmethod
    def mechanism(cls) -> str:
        return BALLS_AND_BINS_MECHANISM

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one step (sample_rate = 1/t); consecutive identical steps are merged."""
        _steps_per_epoch(sample_rate)
        super().step(noise_multiplier=noise_multiplier, sample_rate=sample_rate)

    def epochs(self) -> list[tuple[Fraction, int, int]]:
        """The history as runs of whole epochs ``(noise_multiplier, steps_per_epoch, epochs)``.

        Raises:
            ValueError: a sample rate that is not 1/t, or two different t.
        """
        runs: list[tuple[Fraction, int, int]] = []
        t_all: int | None = None
        partial_sigma: Fraction | None = None  # the smallest noise of the current started epoch
        used = 0  # steps of the current epoch taken
        for entry in self.history:
            s, _q, n = _step_parameters(*entry)
            t = _steps_per_epoch(entry[1])
            if t_all is not None and t != t_all:
                raise ValueError(
                    f"sample_rate must be the same 1/t in every step of a balls-and-bins history. Found 1/{t_all} "
                    f"and 1/{t}."
                )
            t_all = t
            while n > 0:
                take = min(n, t - used)
                if used == 0 and take == t:  # whole epochs at noise s
                    k = n // t
                    runs.append((s, t, k))
                    n -= k * t
                    continue
                partial_sigma = s if partial_sigma is None else min(partial_sigma, s)
                used += take
                n -= take
                if used == t:
                    runs.append((partial_sigma, t, 1))
                    partial_sigma, used = None, 0
        if partial_sigma is not None and t_all is not None:
            runs.append((partial_sigma, t_all, 1))
        return runs

    def _accountant(self, alphas: Sequence[object] | None) -> tuple[RdpAccountant, bool]:
        from ..subsampling.random_allocation_scheme import BallsAndBinsEvent

        t = self.template
        acc = (
            t.fresh()
            if alphas is None
            else RdpAccountant(
                _orders(alphas, "alphas"), continuous=False, conversion=t.conversion, digits=t.digits,
                max_prec=t.max_prec,
            )
        )  # fmt: skip
        non_private = False
        for s, steps, count in self.epochs():
            if s == 0:
                non_private = True
                continue
            acc.compose(BallsAndBinsEvent(GaussianEvent(s), steps), count)
        return acc, non_private


def _float_up(x: Fraction) -> float:
    v = float(x)
    return math.nextafter(v, math.inf) if Fraction(v) < x else v


def _float_down(x: Fraction) -> float:
    v = float(x)
    return math.nextafter(v, -math.inf) if Fraction(v) > x else v


_CLASSES: dict[str, type] = {}


def _opacus_base() -> type:
    try:
        from opacus.accountants import IAccountant
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the Opacus integration needs opacus: pip install 'rigorous-rdp[opacus]'") from exc
    return IAccountant


def _accountant_class(mechanism: str = MECHANISM) -> type:
    """Build (once per mechanism) the subclass of ``opacus.accountants.IAccountant``."""
    if mechanism not in _CLASSES:
        base = _opacus_base()
        impl, name, what = {
            MECHANISM: (_CertifiedRDPAccountantImpl, "CertifiedRDPAccountant", "RDP"),
            PLD_MECHANISM: (_CertifiedPLDAccountantImpl, "CertifiedPLDAccountant", "PLD"),
            BALLS_AND_BINS_MECHANISM: (
                _CertifiedBallsAndBinsAccountantImpl,
                "CertifiedBallsAndBinsAccountant",
                "balls-and-bins RDP",
            ),
        }[mechanism]
        doc = (
            f"Certified {what} accountant for Opacus (an ``opacus.accountants.IAccountant``).\n\n"
            + (impl.__doc__ or "").split("\n\n", 1)[1]
        )
        # __qualname__ and __module__: found by pickle through the module __getattr__
        _CLASSES[mechanism] = type(name, (impl, base), {"__doc__": doc, "__module__": __name__, "__qualname__": name})
    return _CLASSES[mechanism]


def __getattr__(name: str) -> Any:
    if name == "CertifiedRDPAccountant":
        return _accountant_class(MECHANISM)
    if name == "CertifiedPLDAccountant":
        return _accountant_class(PLD_MECHANISM)
    if name == "CertifiedBallsAndBinsAccountant":
        return _accountant_class(BALLS_AND_BINS_MECHANISM)
    if name == "BallsAndBinsSampler":
        return _sampler_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register(name: str, cls: type) -> str:
    from opacus.accountants import registry

    current = registry._ACCOUNTANTS.get(name)
    if current is cls:
        return name
    registry.register_accountant(name, cls)  # raises ValueError if the name is taken
    return name


def register(name: str = MECHANISM) -> str:
    """Make the accountant known to Opacus as ``name`` (``PrivacyEngine(accountant=name)``).

    Idempotent; refuses to replace a different accountant already registered
    under ``name``.  Returns ``name``.  A name other than :data:`MECHANISM` is
    also accepted by ``PrivacyEngine``, but ``make_private_with_epsilon`` looks
    the accountant up by ``mechanism()``, so keep the default for it.
    """
    return _register(name, _accountant_class(MECHANISM))


def register_pld(name: str = PLD_MECHANISM) -> str:
    """Make the certified PLD accountant known to Opacus as ``name`` (default
    ``"certified_pld"``: ``PrivacyEngine(accountant="certified_pld")``); as :func:`register`."""
    return _register(name, _accountant_class(PLD_MECHANISM))


def register_balls_and_bins(name: str = BALLS_AND_BINS_MECHANISM) -> str:
    """Make the balls-and-bins accountant known to Opacus as ``name`` (default
    ``"certified_balls_and_bins"``); as :func:`register`.  Use it with a loader from
    :func:`balls_and_bins_data_loader` and ``make_private(..., poisson_sampling=False)``."""
    return _register(name, _accountant_class(BALLS_AND_BINS_MECHANISM))


# ---------------------------------------------------------------------------
# the balls-and-bins data loader
# ---------------------------------------------------------------------------

_SAMPLER: dict[str, type] = {}


def _sampler_class() -> type:
    """Build (once) :class:`BallsAndBinsSampler`, a ``torch.utils.data.Sampler`` of index lists."""
    if "cls" not in _SAMPLER:
        try:
            import torch
            from torch.utils.data import Sampler
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("the balls-and-bins sampler needs torch: pip install 'rigorous-rdp[opacus]'") from exc

        class BallsAndBinsSampler(Sampler):  # type: ignore[type-arg]  # generic only in newer torch stubs
            r"""Batch sampler of balls-and-bins: each epoch (one pass of the iterator) assigns every
            one of ``num_samples`` examples to one of ``steps_per_epoch`` = t steps, uniformly at
            random and independently of the others, and yields the t batches in order (a batch can
            be empty; its expected size is ``num_samples / t``).

            Args:
                num_samples: the number of examples, >= 1.
                steps_per_epoch: t >= 1, the number of batches per epoch (``len`` of the sampler).
                generator: a ``torch.Generator`` (default: torch's global one).
            """

            def __init__(self, *, num_samples: int, steps_per_epoch: int, generator: Any = None):
                self.num_samples = integer_at_least(num_samples, "num_samples", 1)
                self.steps_per_epoch = integer_at_least(steps_per_epoch, "steps_per_epoch", 1)
                self.generator = generator

            def __len__(self) -> int:
                return self.steps_per_epoch

            def __iter__(self) -> Any:
                t = self.steps_per_epoch
                bins = torch.randint(t, (self.num_samples,), generator=self.generator)
                order = torch.argsort(bins, stable=True)
                counts = torch.bincount(bins, minlength=t).tolist()
                for batch in torch.split(order, counts):
                    yield batch.tolist()

        BallsAndBinsSampler.__module__ = __name__
        _SAMPLER["cls"] = BallsAndBinsSampler
    return _SAMPLER["cls"]


def balls_and_bins_data_loader(data_loader: Any, *, steps_per_epoch: int | None = None, generator: Any = None) -> Any:
    """A ``DataLoader`` over the dataset of ``data_loader`` whose batches are drawn by
    :class:`BallsAndBinsSampler` with ``steps_per_epoch`` = t (default ``len(data_loader)``, i.e.
    N/B rounded up for batches of B), and whose collate function also handles an empty batch
    (Opacus's ``wrap_collate_with_empty``).  The other options of ``data_loader`` (workers, memory
    pinning, ...) are kept.  Pass it to ``make_private(..., poisson_sampling=False)`` with the
    accountant ``"certified_balls_and_bins"``.
    """
    from opacus.data_loader import dtype_safe, shape_safe, wrap_collate_with_empty
    from torch.utils.data import DataLoader

    dataset = data_loader.dataset
    t = len(data_loader) if steps_per_epoch is None else integer_at_least(steps_per_epoch, "steps_per_epoch", 1)
    sampler = _sampler_class()(num_samples=len(dataset), steps_per_epoch=t, generator=generator)
    first = dataset[0]
    collate = wrap_collate_with_empty(
        collate_fn=data_loader.collate_fn,
        sample_empty_shapes=[(0, *shape_safe(x)) for x in first],
        dtypes=[dtype_safe(x) for x in first],
    )
    return DataLoader(
        dataset,
        batch_sampler=sampler,
        collate_fn=collate,
        num_workers=data_loader.num_workers,
        pin_memory=data_loader.pin_memory,
        timeout=data_loader.timeout,
        worker_init_fn=data_loader.worker_init_fn,
        multiprocessing_context=data_loader.multiprocessing_context,
        generator=generator,
        prefetch_factor=data_loader.prefetch_factor,
        persistent_workers=data_loader.persistent_workers,
    )


# ---------------------------------------------------------------------------
# noise calibration
# ---------------------------------------------------------------------------


def calibrate_noise_multiplier(
    *,
    target_epsilon: float,
    target_delta: float,
    sample_rate: float,
    epochs: int | None = None,
    steps: int | None = None,
    sigma_digits: int = DEFAULT_SIGMA_DIGITS,
    accountant: RdpAccountant | None = None,
) -> SigmaCalibration:
    r"""Certified calibration of the noise of Poisson-subsampled Gaussian DP-SGD.

    Returns the :class:`~rigorous_rdp.calibrate.SigmaCalibration`: ``sigma``,
    the smallest noise multiplier with ``sigma_digits`` significant digits whose
    certified epsilon after ``steps`` steps is ``<= target_epsilon``, and
    ``sigma_lower``, the next smaller such number, proven not to meet it.  As in
    Opacus, ``epochs`` means ``int(epochs / sample_rate)`` steps.

    Raises:
        ValueError: bad input, both or neither of ``epochs`` / ``steps``, or a
            target no noise multiplier up to 10**6 meets.
    """
    if (steps is None) == (epochs is None):
        raise ValueError(f"steps or epochs: give exactly one of them. Found steps={steps!r}, epochs={epochs!r}.")
    q = weaker_reading(sample_rate, "sample_rate", smaller=False)
    if not 0 < q <= 1:
        raise ValueError(f"sample_rate must be in (0, 1]. Found {sample_rate!r}.")
    if epochs is not None:  # then steps is None (exactly one of them is given)
        e = weaker_reading(epochs, "epochs", smaller=False)
        if e <= 0:
            raise ValueError(f"epochs must be > 0. Found {epochs!r}.")
        steps = int(float(epochs) / float(sample_rate))  # Opacus's count of steps
        if steps < 1:
            raise ValueError(f"epochs must give at least one step (epochs / sample_rate >= 1). Found {epochs!r}.")
    steps = integer_at_least(steps, "steps", 1)
    eps = weaker_reading(target_epsilon, "target_epsilon", smaller=True)
    if eps <= 0:
        raise ValueError(f"target_epsilon must be > 0. Found {target_epsilon!r}.")
    delta = _check_delta(target_delta, "target_delta")
    return calibrate_sigma(
        lambda s: PoissonSampledEvent(GaussianEvent(s), q),
        steps,
        eps,
        delta,
        sigma_digits=sigma_digits,
        accountant=accountant,
    )


def get_noise_multiplier(
    *,
    target_epsilon: float,
    target_delta: float,
    sample_rate: float,
    epochs: int | None = None,
    steps: int | None = None,
    accountant: str | RdpAccountant = MECHANISM,
    epsilon_tolerance: float = 0.01,
    **kwargs: Any,
) -> float:
    r"""Certified replacement of ``opacus.accountants.utils.get_noise_multiplier`` (same signature).

    Returns the smallest noise multiplier with ``sigma_digits`` (keyword,
    default 4) significant digits whose *certified* epsilon meets
    ``target_epsilon`` (see :func:`calibrate_noise_multiplier`), rounded up to
    a float so that the float is at least that noise.  ``accountant``: an Opacus
    accountant name is accepted for compatibility and ignored (the accounting is
    always this toolkit's certified RDP); an :class:`~rigorous_rdp.RdpAccountant`
    is the template of the accounting options.  ``epsilon_tolerance`` is ignored:
    instead of a tolerance on epsilon, the next smaller ``sigma_digits``-digit
    noise is proven to miss the target.  ``sigma_digits`` goes to
    :func:`calibrate_noise_multiplier`; the accounting options (``orders``, ``continuous``,
    ``conversion``, ``digits``) are refused (they belong to the accountant); other keyword
    arguments are ignored, as Opacus passes its own through.

    Raises:
        ValueError: as :func:`calibrate_noise_multiplier`.
    """
    del epsilon_tolerance
    moved = sorted({"orders", "continuous", "conversion", "digits"} & set(kwargs))
    if moved:
        raise ValueError(
            f"{moved[0]} is an option of the accountant: pass accountant=RdpAccountant({moved[0]}=...). "
            f"Found {moved[0]}={kwargs[moved[0]]!r}."
        )
    cal = calibrate_noise_multiplier(
        target_epsilon=target_epsilon,
        target_delta=target_delta,
        sample_rate=sample_rate,
        epochs=epochs,
        steps=steps,
        sigma_digits=kwargs.get("sigma_digits", DEFAULT_SIGMA_DIGITS),
        accountant=accountant if isinstance(accountant, RdpAccountant) else None,
    )
    v = float(cal.sigma)
    if Fraction(v) < cal.sigma:
        v = math.nextafter(v, math.inf)
    return v

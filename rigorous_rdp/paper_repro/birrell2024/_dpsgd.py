r"""Small numpy DP-SGD used by the training figures of Birrell et al. (Figs. 4b, 5, 10).

Scaled-down stand-in for the CIFAR-10 experiments of section 4.3 and Appendix H of
the seed (``004_85a5147f28f95754.txt``): no GPU and no download here, so the data
are scikit-learn's digits (1797 8x8 images shipped inside the package), split once
into a training set of ``N_TRAIN = 1440`` records and a test set of 357, and the
model is a one-hidden-layer MLP (64-32-10, tanh) trained from scratch.

One DP-SGD step (Abadi et al. 2016; eq. (2) of the seed) with clipping threshold
``C`` and noise multiplier :math:`\sigma`:

.. math::
    \theta_{t+1} = \theta_t - \frac{\eta}{|B|}\Big(\sum_{i \in B_t} \mathrm{clip}_C(\nabla\ell(d_i))
                  + N(0, \sigma^2 C^2 I)\Big),

with per-example gradients materialised (as Opacus does) and the same division
by the (expected) batch size :math:`|B| = qN` for both samplers, so that the two
samplers differ only in how :math:`B_t` is drawn:

* ``"poisson"``: each record independently with probability :math:`q = |B|/N`;
* ``"fswor"``: a uniformly random subset of exactly :math:`|B|` records.

Privacy of a run comes from the certified accountant of this package
(:func:`run_epsilons`), never from this module.  Everything is deterministic
given the seed (``numpy.random.default_rng``).
"""

from __future__ import annotations

import math
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rigorous_rdp.paper_repro._common import fast_tag, save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "N_TRAIN",
    "SAMPLERS",
    "SEEDS",
    "TrainConfig",
    "load_digits_split",
    "run_epsilons",
    "run_samplers",
    "run_seeds",
    "save_scaled_down",
    "train",
]

#: The five sampling seeds of section 4.3 of the seed.
SEEDS = (0, 1364, 2560, 3000, 4111)
#: The two samplers that the training figures compare, in plotting order.
SAMPLERS = ("fswor", "poisson")
N_TRAIN = 1440
_SPLIT_SEED = 20240101

_DATA_CACHE: dict[str, np.ndarray] = {}


def _digits() -> tuple[np.ndarray, np.ndarray]:
    """The digits (1797 x 64 pixel values 0..16) and their labels, as ``sklearn.datasets.load_digits``
    gives them: read from the CSV file shipped with scikit-learn without importing scikit-learn (its
    import takes about a second, ten times the reading)."""
    import gzip
    from importlib.util import find_spec

    spec = find_spec("sklearn")
    where = (
        [Path(p) / "datasets" / "data" / "digits.csv.gz" for p in (spec.submodule_search_locations or [])]
        if spec
        else []
    )
    path = next((p for p in where if p.is_file()), None)
    if path is None:  # an unusual installation: ask scikit-learn itself
        from sklearn.datasets import load_digits

        d = load_digits()
        return d.data, d.target
    with gzip.open(path, "rt") as fh:
        table = np.loadtxt(fh, delimiter=",")
    return table[:, :-1], table[:, -1].astype(int)


def load_digits_split() -> dict[str, np.ndarray]:
    """Digits features scaled to [0, 1], split into 1440 training and 357 test records."""
    if not _DATA_CACHE:
        data, target = _digits()
        x = (data / 16.0).astype(np.float64)
        y = target.astype(np.int64)
        perm = np.random.default_rng(_SPLIT_SEED).permutation(len(y))
        tr, te = perm[:N_TRAIN], perm[N_TRAIN:]
        _DATA_CACHE.update(x_train=x[tr], y_train=y[tr], x_test=x[te], y_test=y[te])
    return dict(_DATA_CACHE)


@dataclass(frozen=True)
class TrainConfig:
    """Parameters of one DP-SGD run (defaults: the Fig. 4 setting scaled to digits)."""

    sampler: str = "fswor"
    sigma: float = 6.0
    clip: float = 3.0
    batch_size: int = 120
    epochs: int = 60
    lr: float = 0.5
    hidden: int = 32
    seed: int = 0
    track_memory: bool = False

    def __post_init__(self) -> None:
        if self.sampler not in ("poisson", "fswor"):
            raise ValueError(f"sampler must be 'poisson' or 'fswor'. Found {self.sampler!r}.")
        if not self.sigma > 0:
            raise ValueError(f"sigma must be > 0. Found {self.sigma!r}.")
        if not 1 <= self.batch_size <= N_TRAIN:
            raise ValueError(f"batch-size must be in [1, {N_TRAIN}]. Found {self.batch_size!r}.")

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(N_TRAIN / self.batch_size)

    @property
    def steps(self) -> int:
        return self.epochs * self.steps_per_epoch

    def settings(self) -> dict[str, Any]:
        """The settings that a figure's JSON records under ``params`` (sigma, C, |B|, |D|, lr, epochs)."""
        return {
            "sigma": self.sigma,
            "clip": self.clip,
            "batch_size": self.batch_size,
            "dataset_size": N_TRAIN,
            "lr": self.lr,
            "epochs": self.epochs,
        }


def _init_params(rng: np.random.Generator, d: int, h: int, k: int) -> list[np.ndarray]:
    w1 = rng.normal(0.0, 1.0 / math.sqrt(d), size=(d, h))
    w2 = rng.normal(0.0, 1.0 / math.sqrt(h), size=(h, k))
    return [w1, np.zeros(h), w2, np.zeros(k)]


def _forward(params: Sequence[np.ndarray], x: np.ndarray):
    w1, b1, w2, b2 = params
    hid = np.tanh(x @ w1 + b1)
    logits = hid @ w2 + b2
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return hid, p


def per_example_grads(params: Sequence[np.ndarray], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-example gradients of the cross-entropy loss, shape ``(len(x), n_params)``."""
    _w1, _b1, w2, _b2 = params
    hid, p = _forward(params, x)
    g = p.copy()
    g[np.arange(len(y)), y] -= 1.0  # d loss / d logits
    dh = (g @ w2.T) * (1.0 - hid * hid)  # d loss / d pre-activation
    parts = [
        np.einsum("bi,bj->bij", x, dh).reshape(len(x), -1),  # W1
        dh,  # b1
        np.einsum("bi,bj->bij", hid, g).reshape(len(x), -1),  # W2
        g,  # b2
    ]
    return np.concatenate(parts, axis=1)


def clipped_grad_sum(params: Sequence[np.ndarray], x: np.ndarray, y: np.ndarray, clip: float) -> np.ndarray:
    r"""Sum of per-example gradients clipped to norm ``clip``, without materialising them.

    The per-example gradient of a dense layer is an outer product, so its squared
    norm factorises: :math:`\|x_i \otimes \delta_i\|^2 = \|x_i\|^2\|\delta_i\|^2`.
    Equal (up to rounding) to clipping the rows of :func:`per_example_grads` and summing.
    """
    _w1, _b1, w2, _b2 = params
    hid, p = _forward(params, x)
    g = p.copy()
    g[np.arange(len(y)), y] -= 1.0
    dh = (g @ w2.T) * (1.0 - hid * hid)
    sq_dh = np.einsum("ij,ij->i", dh, dh)
    sq_g = np.einsum("ij,ij->i", g, g)
    sq = (np.einsum("ij,ij->i", x, x) + 1.0) * sq_dh + (np.einsum("ij,ij->i", hid, hid) + 1.0) * sq_g
    c = np.minimum(1.0, clip / np.maximum(np.sqrt(sq), 1e-300))
    dhc, gc = dh * c[:, None], g * c[:, None]
    return np.concatenate([(x.T @ dhc).ravel(), dhc.sum(axis=0), (hid.T @ gc).ravel(), gc.sum(axis=0)])


def _unflatten(vec: np.ndarray, params: Sequence[np.ndarray]) -> list[np.ndarray]:
    out, i = [], 0
    for p in params:
        out.append(vec[i : i + p.size].reshape(p.shape))
        i += p.size
    return out


def accuracy(params: Sequence[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    _, p = _forward(params, x)
    return float(np.mean(np.argmax(p, axis=1) == y))


def draw_batch(sampler: str, rng: np.random.Generator, n: int, b: int) -> np.ndarray:
    """Indices of one minibatch: Poisson with q = b/n, or b records without replacement."""
    if sampler == "poisson":
        return np.flatnonzero(rng.random(n) < b / n)
    return rng.choice(n, size=b, replace=False)


def _single_thread():
    """Limit BLAS to one thread (small matrices; the machine is shared); None if unavailable."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover
        return None
    return threadpool_limits(limits=1)


def train(cfg: TrainConfig) -> dict[str, Any]:
    r"""Run DP-SGD; return per-epoch test accuracy and per-step batch sizes (and memory).

    Returns a dict with ``test_acc`` (after each epoch, index 0 = before training),
    ``batch_sizes`` (per step), ``peak_bytes`` (per step; only with
    ``track_memory``: tracemalloc's peak of the step above the memory in use before
    it) and ``seconds``.
    """
    data = load_digits_split()
    xtr, ytr, xte, yte = data["x_train"], data["y_train"], data["x_test"], data["y_test"]
    rng_init = np.random.default_rng(12345)  # same initial model for every run
    params = _init_params(rng_init, xtr.shape[1], cfg.hidden, 10)
    rng = np.random.default_rng(cfg.seed)  # sampling and noise
    n, b = N_TRAIN, cfg.batch_size
    n_params = sum(p.size for p in params)
    acc = [accuracy(params, xte, yte)]
    sizes: list[int] = []
    peaks: list[int] = []
    t0 = time.perf_counter()
    limiter = _single_thread()
    if cfg.track_memory:
        tracemalloc.start()
    try:
        for _ in range(cfg.epochs):
            for _ in range(cfg.steps_per_epoch):
                if cfg.track_memory:
                    base = tracemalloc.get_traced_memory()[0]
                    tracemalloc.reset_peak()
                idx = draw_batch(cfg.sampler, rng, n, b)
                sizes.append(len(idx))
                if len(idx) and cfg.track_memory:
                    g = per_example_grads(params, xtr[idx], ytr[idx])
                    norms = np.sqrt(np.einsum("ij,ij->i", g, g))
                    g *= np.minimum(1.0, cfg.clip / np.maximum(norms, 1e-300))[:, None]
                    total = g.sum(axis=0)
                    del g
                elif len(idx):
                    total = clipped_grad_sum(params, xtr[idx], ytr[idx], cfg.clip)
                else:
                    total = np.zeros(n_params)
                total += rng.normal(0.0, cfg.sigma * cfg.clip, size=n_params)
                step = _unflatten(total * (cfg.lr / b), params)
                params = [p - s for p, s in zip(params, step, strict=True)]
                if cfg.track_memory:
                    peaks.append(tracemalloc.get_traced_memory()[1] - base)
            acc.append(accuracy(params, xte, yte))
    finally:
        if cfg.track_memory:
            tracemalloc.stop()
        if limiter is not None:
            limiter.unregister()
    return {"test_acc": acc, "batch_sizes": sizes, "peak_bytes": peaks, "seconds": time.perf_counter() - t0}


def run_seeds(cfg: TrainConfig, seeds: Sequence[int]) -> dict[str, Any]:
    """Train with each seed; return the accuracy matrix (seeds x epochs+1) and stats."""
    runs = [train(replace(cfg, seed=s)) for s in seeds]
    acc = np.array([r["test_acc"] for r in runs])
    return {
        "seeds": list(seeds),
        "test_acc": acc.tolist(),
        "mean": acc.mean(axis=0).tolist(),
        "std": acc.std(axis=0, ddof=1).tolist() if len(seeds) > 1 else [0.0] * acc.shape[1],
        "final_mean": float(acc[:, -1].mean()),
        "final_std": float(acc[:, -1].std(ddof=1)) if len(seeds) > 1 else 0.0,
        "seconds": float(sum(r["seconds"] for r in runs)),
    }


def run_samplers(cfg: TrainConfig, seeds: Sequence[int]) -> dict[str, dict[str, Any]]:
    """:func:`run_seeds` for each of :data:`SAMPLERS`, with the other settings of ``cfg``."""
    return {s: run_seeds(replace(cfg, sampler=s), seeds) for s in SAMPLERS}


#: Taylor order m of the fixed-size bounds (Thms. 3.3 / 3.4 via App. B / C).  The seed
#: finds m = 3 (add/remove) and m = 4 (replace-one) enough at q = 0.0024; at our
#: q = 1/12 the bound still improves up to m ~ 6 (8.04 -> 6.31 -> 6.05 -> 5.98 for
#: replace-one, sigma = 6, 1200 steps), so we use 6.
TAYLOR_ORDER = 6


def _events(sigma: float, b: int, n: int):
    from rigorous_rdp.events import Adjacency, FixedSizeSampledEvent, GaussianEvent, PoissonSampledEvent

    g = GaussianEvent(Fraction(str(sigma)))
    q = Fraction(b, n)
    return {
        "poisson/add-remove": PoissonSampledEvent(g, q, Adjacency.ADD_REMOVE),
        "poisson/replace-one": PoissonSampledEvent(g, q, Adjacency.REPLACE_ONE),
        "fswor/add-remove": FixedSizeSampledEvent(g, b, n, replacement=False, adjacency=Adjacency.ADD_REMOVE),
        "fswor/replace-one": FixedSizeSampledEvent(g, b, n, replacement=False, adjacency=Adjacency.REPLACE_ONE),
    }


def run_epsilons(
    sigma: float, b: int, steps: Sequence[int], delta: str = "1e-5", n: int = N_TRAIN, digits: float = 4
) -> dict[str, Any]:
    r"""Certified epsilon (upper end of the enclosure) after each number of ``steps``.

    For Poisson sampling (Mironov et al. 2019, exact; Thm. C.9 of the seed under
    replace-one) and fixed-size sampling without replacement (Thms. 3.3 / 3.4 of
    the seed), each under add/remove and replace-one adjacency.  A combination that
    the accountant does not support is recorded as ``None`` with the reason, never
    replaced by an uncertified number.
    """
    from rigorous_rdp.accountant import RdpAccountant

    out: dict[str, Any] = {
        "delta": delta,
        "steps": list(steps),
        "epsilon_upper": {},
        "epsilon_lower": {},
        "unavailable": {},
    }
    for name, ev in _events(sigma, b, n).items():
        # the Taylor order of the fixed-size bounds is the accountant's option
        m = TAYLOR_ORDER if name.startswith("fswor") else None
        acc0 = RdpAccountant(digits=digits, taylor_order=m)
        if not acc0.supports(ev):
            out["unavailable"][name] = "no certified bound registered for this event yet"
            out["epsilon_upper"][name] = None
            out["epsilon_lower"][name] = None
            continue
        ups: list[float] = []
        los: list[float] = []
        try:
            for t in steps:
                r = RdpAccountant(digits=digits, taylor_order=m).compose(ev, int(t)).get_epsilon_and_order(delta)
                ups.append(r.epsilon.upper_float())
                los.append(r.epsilon.lower_float())
        except Exception as exc:
            out["unavailable"][name] = f"{type(exc).__name__}: {exc}"
            out["epsilon_upper"][name] = None
            out["epsilon_lower"][name] = None
            continue
        out["epsilon_upper"][name] = ups
        out["epsilon_lower"][name] = los
    return out


#: Colours of the two samplers in every training figure.
COLORS = {"fswor": "tab:blue", "poisson": "tab:orange"}
LABELS = {"fswor": "fixed-size w/o replacement (FSwoR)", "poisson": "Poisson"}
SCALED_NOTE = "scaled-down reproduction: sklearn digits (N=1440), numpy MLP 64-32-10, CPU"


SHORT_LABELS = {"fswor": "FSwoR", "poisson": "Poisson"}


def plot_accuracy(
    ax,
    results: dict[str, dict[str, Any]],
    epsilons: dict[str, Any] | None = None,
    nsd: float = 3.0,
    short: bool = False,
) -> None:
    """Mean test accuracy vs epoch per sampler with a shaded band of +-``nsd`` standard deviations."""
    for s in SAMPLERS:
        r = results[s]
        m, sd = np.asarray(r["mean"]), np.asarray(r["std"])
        ep = np.arange(len(m))
        label = f"{(SHORT_LABELS if short else LABELS)[s]}: {100 * r['final_mean']:.2f}%"
        if epsilons is not None:
            eps = _final_eps_label(epsilons, s)
            if eps:
                label += f", {eps}"
        ax.plot(ep, 100 * m, color=COLORS[s], label=label, lw=1.4)
        ax.fill_between(
            ep, 100 * np.clip(m - nsd * sd, 0, 1), 100 * np.clip(m + nsd * sd, 0, 1), color=COLORS[s], alpha=0.2, lw=0
        )
    ax.set_xlabel("epoch")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)


def save_scaled_down(
    fig: Figure, heading: str, data: dict[str, Any], out_dir: Path, fig_id: str, fast: bool, fontsize: float = 10
) -> dict[str, Any]:
    """Title, layout and files of a scaled-down figure; its JSON records ``scaled_down`` and ``fast``."""
    fig.suptitle(heading + fast_tag(fast), fontsize=fontsize)
    fig.tight_layout()
    return save_figure(fig, {"scaled_down": True, "fast": fast, **data}, out_dir, fig_id)


def _final_eps_label(epsilons: dict[str, Any], sampler: str) -> str:
    ups = epsilons["epsilon_upper"]
    parts = []
    for adj, short in (("replace-one", "r-o"), ("add-remove", "a/r")):
        v = ups.get(f"{sampler}/{adj}")
        if v:
            parts.append(f"{short} \u03b5\u2264{v[-1]:.3g}")
    return ", ".join(parts)

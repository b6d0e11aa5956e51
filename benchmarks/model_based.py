"""Speed rows of the model-based bootstraps (issue 18), in the shared harness.

* residual (AR(1)) and sieve bootstraps of the mean against tsbootstrap 0.7's
  ``bootstrap_reduce(..., method=ResidualBootstrap(model=AR(1)) | SieveAR(...),
  statistic="mean")`` (its numpy backend: the compiled one refuses recursive
  methods), same model and the same start rule (observed first ``p`` values, no
  burn-in);
* the wild cluster bootstrap t test (WCR, Rademacher) against a straightforward
  numpy implementation (the "loop" column): per replicate it builds ``y*``,
  refits OLS with the precomputed ``(X'X)^-1`` and computes the CRV1 standard
  error from per-cluster score sums (``np.bincount``), O(n k) per replicate;
* the wild cluster bootstrap at n = 1,000,000 and G = 50 with B = 9,999, skboot
  alone (the straightforward version would take minutes).

* the VAR(2) residual bootstrap of 3 series (n = 1,000, B = 2,000) against
  tsbootstrap's ``ResidualBootstrap(model=VAR(order=2))``;
* the ARIMA(1, 1, 1) residual bootstrap (n = 1,000, B = 2,000) against
  tsbootstrap's ``ResidualBootstrap(model=ARIMA(order=(1, 1, 1)))``: both fit the
  model once with statsmodels' maximum likelihood and then generate replicates, so
  the end-to-end row is dominated by the same fit; the second row times the
  replicates alone (skboot from fitted statsmodels results, tsbootstrap's own
  replicate generator on its prepared fit);

Floors: >= 10x tsbootstrap (residual, sieve, VAR, ARIMA replicates) and >= 10x the
numpy version (wild cluster).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._harness import NA, Floor, Group, Row

__all__ = ["GROUPS", "straightforward_wcb"]


def _tsb() -> Any:
    try:
        import tsbootstrap
    except ImportError:
        return None
    return tsbootstrap


def ar1(n: int, phi: float = 0.6, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=n + 100)
    x = np.zeros(n + 100)
    for t in range(1, n + 100):
        x[t] = phi * x[t - 1] + e[t]
    return x[100:]


def _peer_cells(kind: str, x: np.ndarray, B: int) -> tuple[dict, dict, dict]:
    import skboot

    impls: dict[str, Callable[[], Any]] = {}
    peers: dict[str, str | NA] = {
        "arch": NA("n/a: arch has no model-based bootstrap"),
        "scipy": NA("n/a: scipy has no model-based bootstrap"),
        "loop": NA("n/a"),
    }
    notes: dict[str, str] = {}
    if kind == "residual":
        rs = skboot.ResidualBootstrap(B, order=1, burn_in=0, random_state=0)
    else:
        rs = skboot.SieveBootstrap(B, order="bic", burn_in=0, random_state=0)
    impls["skboot"] = lambda: skboot.bootstrap(x, "mean", resampler=rs)
    tsb = _tsb()
    if tsb is None:
        peers["tsbootstrap"] = NA("n/a: tsbootstrap is not installed")
        return impls, peers, notes
    from tsbootstrap.methods import AR, ResidualBootstrap, SieveAR

    def spec() -> Any:
        if kind == "residual":
            return ResidualBootstrap(model=AR(order=1))
        return SieveAR(criterion="bic")

    impls["tsbootstrap"] = lambda: tsb.bootstrap_reduce(
        x, method=spec(), statistic="mean", n_bootstraps=B, random_state=0
    )
    peers["tsbootstrap"] = "tsbootstrap"
    notes["tsbootstrap"] = (
        "bootstrap_reduce(statistic='mean'), numpy backend (compiled refuses "
        "recursive methods)"
    )
    return impls, peers, notes


def _ar_group(cfg: Any, kind: str) -> Group:
    n = 1_000
    B = 500 if cfg.quick else 2_000
    x = ar1(n)
    impls, peers, notes = _peer_cells(kind, x, B)
    label = (
        "residual bootstrap AR(1) mean"
        if kind == "residual"
        else "sieve bootstrap (BIC order) mean"
    )
    return Group(
        name=f"model_{kind}",
        impls=impls,
        rows=[
            Row(
                name=f"model_{kind}",
                label=f"{label}, n={n:,}, B={B:,}",
                skboot="skboot",
                peers=peers,
                floors=[Floor("tsbootstrap", 10, "issue 18")],
                notes=notes,
            )
        ],
        params={"n": n, "B": B},
    )


def group_model_residual(cfg: Any) -> Group:
    return _ar_group(cfg, "residual")


def group_model_sieve(cfg: Any) -> Group:
    return _ar_group(cfg, "sieve")


def var2(n: int, seed: int = 0) -> np.ndarray:
    """A stable VAR(2) of 3 series (companion modulus about 0.7)."""
    A1 = np.array([[0.5, 0.1, 0.0], [0.0, 0.4, 0.2], [0.1, 0.0, 0.3]])
    A2 = 0.1 * np.eye(3)
    rng = np.random.default_rng(seed)
    y = np.zeros((n + 100, 3))
    for t in range(2, n + 100):
        y[t] = 0.2 + A1 @ y[t - 1] + A2 @ y[t - 2] + rng.normal(size=3)
    return y[100:]


def group_model_var(cfg: Any) -> Group:
    """VAR(2) residual bootstrap of the 3 means against tsbootstrap's
    ``bootstrap_reduce(method=ResidualBootstrap(model=VAR(order=2)))``, both
    starting from the observed first rows (no burn-in)."""
    import skboot
    from skboot.model_based import VARResidualBootstrap

    n = 1_000
    B = 500 if cfg.quick else 2_000
    y = var2(n)
    vb = VARResidualBootstrap(B, order=2, burn_in=0, random_state=0)
    impls: dict[str, Callable[[], Any]] = {
        "skboot": lambda: skboot.bootstrap(y, "mean", resampler=vb)
    }
    peers: dict[str, str | NA] = {
        "arch": NA("n/a: arch has no VAR bootstrap"),
        "scipy": NA("n/a: scipy has no model-based bootstrap"),
        "loop": NA("n/a"),
    }
    notes: dict[str, str] = {}
    tsb = _tsb()
    if tsb is None:
        peers["tsbootstrap"] = NA("n/a: tsbootstrap is not installed")
    else:
        from tsbootstrap.methods import VAR, ResidualBootstrap

        impls["tsbootstrap"] = lambda: tsb.bootstrap_reduce(
            y,
            method=ResidualBootstrap(model=VAR(order=2)),
            statistic="mean",
            n_bootstraps=B,
            random_state=0,
        )
        peers["tsbootstrap"] = "tsbootstrap"
        notes["tsbootstrap"] = "bootstrap_reduce(statistic='mean'), numpy backend"
    return Group(
        name="model_var",
        impls=impls,
        rows=[
            Row(
                name="model_var",
                label=f"VAR(2) residual bootstrap, 3 series, means, n={n:,}, B={B:,}",
                skboot="skboot",
                peers=peers,
                floors=[Floor("tsbootstrap", 10, "VAR residual bootstrap")],
                notes=notes,
            )
        ],
        params={"n": n, "B": B},
    )


def _tsb_arima_replicates(y: np.ndarray, B: int) -> Callable[[], Any] | None:
    """tsbootstrap's ARIMA(1, 1, 1) replicate generation alone, on a fit prepared
    once (its internal functions: the generators of the replicates, the ARMA
    filter, the integration) and the means of the replicates."""
    try:
        from tsbootstrap.methods import ARIMA, IID
        from tsbootstrap.model.recursive import _arima_batched, _prepare_arima
        from tsbootstrap.rng import generators_from_seeds
    except ImportError:
        return None
    ctx = _prepare_arima(y, ARIMA(order=(1, 1, 1)), None, IID())

    def run() -> np.ndarray:
        seeds = np.random.SeedSequence(0).spawn(B)
        gens = generators_from_seeds(seeds)
        return _arima_batched(ctx, y.shape[0], gens, np.dtype(np.float64)).mean(axis=1)

    return run


def group_model_arima(cfg: Any) -> Group:
    """ARIMA(1, 1, 1) residual bootstrap of the mean, n = 1,000, against
    tsbootstrap 0.7's ``ResidualBootstrap(model=ARIMA(order=(1, 1, 1)))``: both
    fit once (statsmodels' MLE) and condition on the observed start; neither
    refits per replicate."""
    import skboot
    from skboot.model_based import ARIMAResidualBootstrap

    n = 1_000
    B = 500 if cfg.quick else 2_000
    y = 10.0 + np.cumsum(ar1(n, 0.5))
    from statsmodels.tsa.arima.model import ARIMA as SMARIMA

    fitted = ARIMAResidualBootstrap(B, random_state=0).fit(
        SMARIMA(y, order=(1, 1, 1)).fit()
    )

    def replicates() -> np.ndarray:
        return np.concatenate([blk.mean(axis=1) for blk in fitted.iter_samples()])

    impls: dict[str, Callable[[], Any]] = {
        "skboot": lambda: skboot.bootstrap(
            y,
            "mean",
            resampler=ARIMAResidualBootstrap(B, order=(1, 1, 1)),
            random_state=0,
        ),
        "skboot_replicates": replicates,
    }
    na = {
        "arch": NA("n/a: arch has no ARIMA bootstrap"),
        "scipy": NA("n/a: scipy has no model-based bootstrap"),
        "loop": NA("n/a"),
    }
    peers: dict[str, str | NA] = dict(na)
    peers_rep: dict[str, str | NA] = dict(na)
    notes: dict[str, str] = {}
    tsb = _tsb()
    sim = None if tsb is None else _tsb_arima_replicates(y, B)
    if tsb is None or sim is None:
        peers["tsbootstrap"] = peers_rep["tsbootstrap"] = NA(
            "n/a: tsbootstrap is not installed"
        )
    else:
        from tsbootstrap.methods import ARIMA, ResidualBootstrap

        impls["tsbootstrap"] = lambda: tsb.bootstrap_reduce(
            y,
            method=ResidualBootstrap(model=ARIMA(order=(1, 1, 1))),
            statistic="mean",
            n_bootstraps=B,
            random_state=0,
        )
        impls["tsbootstrap_replicates"] = sim
        peers["tsbootstrap"] = "tsbootstrap"
        peers_rep["tsbootstrap"] = "tsbootstrap_replicates"
        notes["tsbootstrap"] = (
            "bootstrap_reduce(statistic='mean'): one fit + replicates"
        )
    return Group(
        name="model_arima",
        impls=impls,
        rows=[
            Row(
                name="model_arima",
                label=f"ARIMA(1,1,1) residual bootstrap mean, fit included, n={n:,}, B={B:,}",
                skboot="skboot",
                peers=peers,
                notes=dict(notes),
            ),
            Row(
                name="model_arima_replicates",
                label=f"ARIMA(1,1,1) replicates from a fitted model, n={n:,}, B={B:,}",
                skboot="skboot_replicates",
                peers=peers_rep,
                floors=[Floor("tsbootstrap", 10, "ARIMA residual bootstrap")],
                notes={"tsbootstrap": "its replicate generator on its prepared fit"}
                if "tsbootstrap" in notes
                else {},
            ),
        ],
        params={"n": n, "B": B},
    )


# ---------------------------------------------------------------------------
# wild cluster bootstrap
# ---------------------------------------------------------------------------
def cluster_data(n: int, G: int, k: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, G, size=n)
    X = rng.normal(size=(n, k)) + rng.normal(size=(G, k))[g]
    y = X @ np.r_[0.0, np.ones(k - 1)] + rng.normal(size=n) + rng.normal(size=G)[g]
    return X, y, g


def straightforward_wcb(
    X: np.ndarray, y: np.ndarray, g: np.ndarray, B: int, seed: int = 0
) -> tuple[float, np.ndarray]:
    """WCR t test of the first coefficient = 0, the direct way: O(n k) per
    replicate (y*, OLS with the precomputed inverse, residuals, cluster scores by
    ``np.bincount``, CRV1).  Returns (t, t*)."""
    D = np.column_stack([X, np.ones(len(y))])
    n, k = D.shape
    G = int(g.max()) + 1
    c = G / (G - 1) * (n - 1) / (n - k)
    A = np.linalg.inv(D.T @ D)
    a = np.zeros(k)
    a[0] = 1.0
    q = A @ a

    w = D @ q  # a' A X_g' u_g = sum over the rows i of g of (X_i q) u_i

    def se_of(resid: np.ndarray) -> float:
        per = np.bincount(g, weights=w * resid, minlength=G)
        return float(np.sqrt(c * per @ per))

    bhat = A @ (D.T @ y)
    t = float(a @ bhat) / se_of(y - D @ bhat)
    btil = bhat - q * (a @ bhat) / (a @ q)
    fit = D @ btil
    resid = y - fit
    rng = np.random.default_rng(seed)
    tstar = np.empty(B)
    for b in range(B):
        v = rng.choice([-1.0, 1.0], size=G)
        ys = fit + resid * v[g]
        bs = A @ (D.T @ ys)
        tstar[b] = float(a @ bs) / se_of(ys - D @ bs)
    return t, tstar


def group_wild_cluster(cfg: Any) -> Group:
    import skboot

    n, G = 100_000, 50
    B = 199 if cfg.quick else 999
    X, y, g = cluster_data(n, G)
    impls = {
        "skboot": lambda: skboot.wild_cluster_bootstrap(
            X, y, g, n_resamples=B, random_state=0
        ),
        "loop": lambda: straightforward_wcb(X, y, g, B),
    }
    return Group(
        name="wild_cluster",
        impls=impls,
        rows=[
            Row(
                name="wild_cluster",
                label=f"wild cluster bootstrap t test (WCR), n={n:,}, k=4, G={G}, B={B:,}",
                skboot="skboot",
                peers={
                    "arch": NA("n/a: no wild cluster bootstrap"),
                    "scipy": NA("n/a: no wild cluster bootstrap"),
                    "tsbootstrap": NA("n/a: no wild cluster bootstrap"),
                    "loop": "loop",
                },
                floors=[Floor("loop", 10, "issue 18")],
                notes={
                    "loop": "straightforward numpy WCR: y*, OLS, CRV1 per "
                    "replicate, O(n k) each"
                },
            )
        ],
        params={"n": n, "G": G, "B": B},
    )


def group_wild_cluster_1m(cfg: Any) -> Group:
    import skboot

    n, G, B = 1_000_000, 50, 9_999
    X, y, g = cluster_data(n, G, seed=1)
    impls = {
        "skboot": lambda: skboot.wild_cluster_bootstrap(
            X, y, g, n_resamples=B, random_state=0
        ).confidence_interval(),
    }
    na = NA("n/a: not run (the straightforward version takes minutes)")
    return Group(
        name="wild_cluster_1m",
        impls=impls,
        rows=[
            Row(
                name="wild_cluster_1m",
                label=(
                    f"wild cluster bootstrap p-value + test-inversion interval, "
                    f"n={n:,}, k=4, G={G}, B={B:,}"
                ),
                skboot="skboot",
                peers={
                    "arch": na,
                    "scipy": na,
                    "tsbootstrap": na,
                    "loop": na,
                },
            )
        ],
        params={"n": n, "G": G, "B": B},
    )


# ---------------------------------------------------------------------------
# parametric bootstrap
# ---------------------------------------------------------------------------
def group_parametric(cfg: Any) -> Group:
    """ParametricBootstrap of the mean of n = 100 normal values, with a frozen
    scipy distribution and with a sampler callable, against the plain loop
    that draws each replicate from a fresh generator (the same replicates)."""
    from scipy import stats

    import skboot
    from skboot.model_based import ParametricBootstrap

    n = 100
    B = 500 if cfg.quick else 2_000
    x = np.random.default_rng(0).normal(size=n)
    frozen = stats.norm(0.1, 1.2)

    def sampler(size: int, random_state: np.random.Generator) -> np.ndarray:
        return random_state.normal(0.1, 1.2, size)

    pb_scipy = ParametricBootstrap(B, distribution=frozen, random_state=0)
    pb_sampler = ParametricBootstrap(B, distribution=sampler, random_state=0)
    fitted = pb_scipy.fit(x)

    def loop(draw: Callable[..., np.ndarray]) -> np.ndarray:
        # a fresh Generator per replicate, as ParametricBootstrap.generator(b)
        return np.array(
            [draw(size=n, random_state=fitted.generator(b)).mean() for b in range(B)]
        )

    impls = {
        "skboot": lambda: skboot.bootstrap(x, "mean", resampler=pb_scipy),
        "skboot_sampler": lambda: skboot.bootstrap(x, "mean", resampler=pb_sampler),
        "loop": lambda: loop(frozen.rvs),
        "loop_sampler": lambda: loop(sampler),
    }
    na = NA("n/a: no parametric bootstrap class")
    note = "fresh numpy Generator per replicate (ParametricBootstrap.generator(b))"
    rows = [
        Row(
            name=f"parametric_{kind}",
            label=f"parametric bootstrap mean ({what}), n={n}, B={B:,}",
            skboot=impl,
            peers={"arch": na, "scipy": na, "tsbootstrap": na, "loop": peer},
            notes={"loop": note},
        )
        for kind, what, impl, peer in (
            ("scipy", "frozen scipy.stats.norm", "skboot", "loop"),
            ("sampler", "sampler callable", "skboot_sampler", "loop_sampler"),
        )
    ]
    return Group(name="parametric", impls=impls, rows=rows, params={"n": n, "B": B})


def two_way_1m_data(n: int, G: int, k: int, seed: int = 2):
    """``n`` rows, ``k - 1`` regressors, two crossed clusterings of ``G``
    clusters each (firms, years) with components in the regressors and errors."""
    rng = np.random.default_rng(seed)
    g1 = rng.integers(0, G, size=n)
    g2 = rng.integers(0, G, size=n)
    X = rng.standard_normal((n, k - 1))
    X += rng.standard_normal((G, k - 1))[g1]
    y = X @ np.linspace(0.0, 1.0, k - 1) + rng.standard_normal(n)
    y += rng.standard_normal(G)[g1] + rng.standard_normal(G)[g2]
    return X, y, np.column_stack([g1, g2])


def group_wild_cluster_2way_1m(cfg: Any) -> Group:
    import skboot

    n, G, k, B = 1_000_000, 50, 10, 9_999
    X, y, groups = two_way_1m_data(n, G, k)
    impls = {
        "skboot": lambda: skboot.wild_cluster_bootstrap(
            X, y, groups, n_resamples=B, random_state=0
        ),
        "one_way": lambda: skboot.wild_cluster_bootstrap(
            X, y, groups[:, 0], n_resamples=B, random_state=0
        ),
    }
    na = NA("n/a: not run (the straightforward version takes minutes)")
    return Group(
        name="wild_cluster_2way_1m",
        impls=impls,
        rows=[
            Row(
                name="wild_cluster_2way_1m",
                label=(
                    f"wild cluster bootstrap p-value, two-way clustering "
                    f"({G} x {G}), n={n:,}, k={k}, B={B:,}"
                ),
                skboot="skboot",
                peers={
                    "arch": na,
                    "scipy": na,
                    "tsbootstrap": na,
                    "loop": na,
                    "ref": "one_way",
                },
                notes={"ref": "the same call clustered one way (firms only)"},
            )
        ],
        params={"n": n, "G": G, "k": k, "B": B},
    )


GROUPS: dict[str, Callable[[Any], Group]] = {
    "model_residual": group_model_residual,
    "model_sieve": group_model_sieve,
    "model_var": group_model_var,
    "model_arima": group_model_arima,
    "wild_cluster": group_wild_cluster,
    "wild_cluster_1m": group_wild_cluster_1m,
    "parametric": group_parametric,
    "wild_cluster_2way_1m": group_wild_cluster_2way_1m,
}

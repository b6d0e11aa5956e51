"""Validate a statistic against the data and build the engine object that runs it:
a fused built-in, a user callable, or what a synthetic-sample plan builds."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from skboot._engine._builtin import BUILTIN_STATISTICS, BuiltinStatistic
from skboot._engine._callable import CallableStatistic
from skboot._engine._independent import independent_builtin
from skboot._engine._ols import make_ols
from skboot._engine._rows import as_float_rows
from skboot._engine._statistic import Statistic, accepts
from skboot._validation import param_error, value_error
from skboot.resamplers import ResamplingPlan

__all__ = ["make_statistic"]

#: Keywords each built-in accepts in ``statistic_kwargs``.
_BUILTIN_KEYWORDS = {"var": {"ddof"}, "std": {"ddof"}, "quantile": {"q"}}
_STATISTIC_ALLOWED = (
    "a callable or one of {" + ", ".join(repr(s) for s in BUILTIN_STATISTICS) + "}"
)


def make_statistic(
    statistic: Any,
    arrays: tuple[np.ndarray, ...],
    *,
    vectorized: bool | None,
    statistic_kwargs: dict[str, Any] | None,
    plan: ResamplingPlan,
    owner: str,
    allow_nonfinite: bool = False,
) -> Statistic:
    """Validate the statistic against the data and build the engine object.

    ``allow_nonfinite`` (``nan_policy="propagate"``) lets NaN/inf reach the
    built-in kernels, whose replicates are then NaN and counted as undefined.  A
    plan whose replicates are synthetic samples (:attr:`builds_statistic`) builds
    the statistic itself.
    """
    if plan.builds_statistic:
        stat: Statistic = plan.make_statistic(
            statistic,
            arrays,
            vectorized=vectorized,
            statistic_kwargs=statistic_kwargs,
            owner=owner,
            allow_nonfinite=allow_nonfinite,
        )
        return stat
    kwargs = dict(statistic_kwargs or {})
    if isinstance(statistic, str) and plan.sample_plans is not None:
        # independent samples: the fused built-in on each sample, then combined
        return independent_builtin(
            statistic,
            arrays,
            plan,
            kwargs,
            owner,
            lambda name, arrs, kw, p: _builtin(
                name, arrs, kw, p, owner, allow_nonfinite
            ),
        )
    if statistic == "ols":
        return make_ols(arrays, kwargs, owner, allow_nonfinite)
    if isinstance(statistic, str):
        return _builtin(statistic, arrays, kwargs, plan, owner, allow_nonfinite)
    if not callable(statistic):
        raise param_error("statistic", owner, _STATISTIC_ALLOWED, statistic)
    return _callable(statistic, arrays, kwargs, vectorized, plan, owner)


# ---------------------------------------------------------------------------
# built-ins
# ---------------------------------------------------------------------------
def _builtin(
    name: str,
    arrays: tuple[np.ndarray, ...],
    kwargs: dict[str, Any],
    plan: ResamplingPlan,
    owner: str,
    allow_nonfinite: bool,
) -> BuiltinStatistic:
    if name not in BUILTIN_STATISTICS:
        raise param_error("statistic", owner, _STATISTIC_ALLOWED, name)
    allowed_kw = _BUILTIN_KEYWORDS.get(name, set())
    extra = set(kwargs) - allowed_kw
    if extra:
        raise value_error(
            "statistic_kwargs",
            owner,
            f"accepts "
            f"{sorted(allowed_kw) or 'no keys'} for statistic {name!r}. "
            f"Got {sorted(extra)} instead.",
        )
    X = _builtin_data(name, arrays, owner)
    _check_builtin_values(name, X, owner, allow_nonfinite)
    ddof = _check_ddof(name, kwargs.get("ddof", 0), plan, owner)
    q, scalar_q = _check_q(name, kwargs, owner)
    if plan.layout == "weights" and name in ("median", "quantile"):
        raise ValueError(
            f"The statistic {name!r} is not available with a resampler "
            "whose replicates are continuous weights (BayesianBootstrap, "
            "TaperedBlockBootstrap): weighted quantiles have no single "
            "definition. Use a callable that accepts 'weights'."
        )
    return BuiltinStatistic(name=name, data=X, ddof=ddof, q=q, scalar_q=scalar_q)


def _builtin_data(name: str, arrays: tuple[np.ndarray, ...], owner: str) -> np.ndarray:
    """The data of a built-in as C-contiguous float64 (n, d)."""
    if len(arrays) == 2 and name == "corr":
        a0 = np.asarray(arrays[0], dtype=np.float64).reshape(-1)
        a1 = np.asarray(arrays[1], dtype=np.float64).reshape(-1)
        return np.ascontiguousarray(np.column_stack([a0, a1]))
    if len(arrays) != 1:
        raise ValueError(
            f"The built-in statistic {name!r} takes one data array "
            f"(or two for 'corr'). Got {len(arrays)} arrays instead; use a "
            "callable statistic for several arrays."
        )
    a = arrays[0]
    if a.dtype.kind == "c":
        raise value_error(
            "data",
            owner,
            f"must be real numeric for the "
            f"built-in statistic {name!r}. Complex data not supported "
            f"(got dtype {a.dtype}).",
        )
    if a.dtype.kind == "O":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise type(exc)(
                f"The 'data' parameter of {owner} must be numeric for the "
                f"built-in statistic {name!r}: {exc}"
            ) from exc
    if a.dtype.kind not in "biuf":
        raise value_error(
            "data",
            owner,
            f"must be numeric for the "
            f"built-in statistic {name!r}. Got dtype {a.dtype} instead.",
        )
    if a.ndim > 2:
        raise value_error(
            "data",
            owner,
            f"must be 1-D or 2-D (rows are observations). Got shape {a.shape} instead.",
        )
    if a.ndim == 2 and a.shape[1] == 0:
        raise value_error(
            "data",
            owner,
            f"has 0 feature(s) (shape={a.shape}) while a minimum of 1 is required.",
        )
    return as_float_rows(a)


def _check_builtin_values(
    name: str, X: np.ndarray, owner: str, allow_nonfinite: bool
) -> None:
    if not allow_nonfinite and not np.isfinite(X).all():
        bad = int((~np.isfinite(X)).sum())
        raise value_error(
            "data",
            owner,
            f"contains {bad} NaN or infinite "
            "value(s); remove them or use a callable that handles them.",
        )
    if name == "corr" and X.shape[1] != 2:
        raise ValueError(
            f"The statistic 'corr' needs exactly two columns (or two arrays). "
            f"Got {X.shape[1]} column(s) instead."
        )
    if name == "proportion" and not np.isin(X, (0.0, 1.0)).all():
        raise ValueError(
            "The statistic 'proportion' needs boolean or 0/1 data. Got "
            "other values instead."
        )


def _check_ddof(name: str, ddof: Any, plan: ResamplingPlan, owner: str) -> int:
    if name not in ("var", "std"):
        return 0
    if isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer)) or ddof < 0:
        raise ValueError(
            f"The 'ddof' statistic keyword of {owner} must be an int >= 0. "
            f"Got {ddof!r} instead."
        )
    if plan.layout == "fixed" and plan.replicate_size - ddof <= 0:
        raise ValueError(
            f"The 'ddof' statistic keyword of {owner} must be smaller than "
            f"the replicate size {plan.replicate_size}. Got {ddof} instead."
        )
    return int(ddof)


def _check_q(name: str, kwargs: dict[str, Any], owner: str) -> tuple[np.ndarray, bool]:
    """The quantile levels (1-D) and whether ``q`` was a scalar."""
    if name != "quantile":
        return np.empty(0), True
    if "q" not in kwargs:
        raise ValueError(
            f"The statistic 'quantile' of {owner} needs statistic_kwargs="
            "{'q': ...} with q in [0, 1]. Got no 'q' instead."
        )
    raw = kwargs["q"]
    try:
        q = np.atleast_1d(np.asarray(raw, dtype=np.float64))
    except (TypeError, ValueError):
        q = np.array([np.nan])
    if q.ndim != 1 or q.size == 0 or not np.all((q >= 0) & (q <= 1)):
        raise ValueError(
            f"The 'q' statistic keyword of {owner} must be a float or 1-D "
            f"array of floats in [0, 1]. Got {raw!r} instead."
        )
    return q, np.ndim(raw) == 0


# ---------------------------------------------------------------------------
# callables
# ---------------------------------------------------------------------------
def _callable(
    statistic: Any,
    arrays: tuple[np.ndarray, ...],
    kwargs: dict[str, Any],
    vectorized: Any,
    plan: ResamplingPlan,
    owner: str,
) -> CallableStatistic:
    if vectorized is None:  # checked by the entry point (VECTORIZED)
        vectorized = accepts(statistic, "axis")
    func = functools.partial(statistic, **kwargs) if kwargs else statistic
    weights_kw = None
    if plan.layout == "weights":
        for name in ("weights", "sample_weight"):
            if accepts(statistic, name):
                weights_kw = name
                break
        else:
            raise ValueError(
                f"The resampler gives continuous weights, so the statistic of {owner} "
                "must accept a 'weights' or 'sample_weight' keyword. Got a callable "
                "without either instead."
            )
    stat = CallableStatistic(
        func=func, vectorized=bool(vectorized), weights_kw=weights_kw, arrays=arrays
    )
    est = stat.estimate()
    stat.k = est.shape[0]
    stat.cached_estimate = est  # the engine's caller reuses it: one call, not two
    return stat

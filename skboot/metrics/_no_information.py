"""The no-information score of the .632+ rule (Efron & Tibshirani 1997): a
scorer's value when predictions are independent of the targets, computed in
O(n log n) or less from the product of the two empirical distributions."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from skboot.metrics._registry import METRICS
from skboot.metrics._resolve import REGRESSION, is_scorer, resolve_metric
from skboot.metrics._statistics import accepts

__all__ = ["no_information_score", "pairwise_mae", "response"]


def response(estimator: Any, X: Any, response_method: Any) -> tuple[np.ndarray, str]:
    methods = (
        (response_method,)
        if isinstance(response_method, str)
        else tuple(response_method)
    )
    for m in methods:
        if hasattr(estimator, m):
            return np.asarray(getattr(estimator, m)(X)), m
    raise ValueError(
        f"The estimator {type(estimator).__name__} has none of the response methods "
        f"{list(methods)} that the scorer needs."
    )


def no_information_score(
    scorer: Any, fitted: Any, X: Any, y: np.ndarray, owner: str
) -> float:
    """The scorer's value when predictions are independent of the targets.

    Efron & Tibshirani's no-information error rate ``gamma`` is the loss
    averaged over all n^2 pairs ``(y_i, yhat_j)``.  Those pairs form the product
    of the empirical distributions of ``y`` and of the predictions, which is
    represented exactly with weights instead of n^2 rows:

    - classification: every class ``k`` of ``y`` (proportion ``p_k``) paired with
      every prediction (weight ``1/n``): K*n weighted rows, one metric call
      (O(K n log(K n)) for ranking metrics; for accuracy this is
      ``sum_k p_k q_k``, i.e. the error ``sum_k p_k (1 - q_k)``);
    - regression, closed forms: mean squared error of the pairs is
      ``var(y) + var(yhat) + (mean(y) - mean(yhat))^2``; their mean absolute
      error is computed from the two sorted samples and prefix sums (O(n log n));
      R^2 is ``1 - mse_pairs / var(y)``.
    """
    if not is_scorer(scorer):
        raise ValueError(
            f"The rule '.632+' of {owner} needs a scikit-learn scorer (a scorer name "
            "or sklearn.metrics.make_scorer(...)) to compute the no-information "
            f"rate. Got {scorer!r} instead; use rule='.632' or 'oob'."
        )
    resolved = resolve_metric(scorer, {}, owner)
    yhat, used = response(fitted, X, getattr(scorer, "_response_method", "predict"))
    reg = resolved.registry
    if reg in REGRESSION:
        yt = np.asarray(y, dtype=np.float64)
        yh = np.asarray(yhat, dtype=np.float64).reshape(-1)
        if reg == "mean_absolute_error":
            value = pairwise_mae(yt, yh)
        else:
            mse = float(yt.var() + yh.var() + (yt.mean() - yh.mean()) ** 2)
            if reg == "mean_squared_error":
                value = mse
            elif reg == "root_mean_squared_error":
                value = math.sqrt(mse)
            else:
                value = 1.0 - mse / float(yt.var()) if yt.var() > 0 else math.nan
        return resolved.sign * value
    if (
        used == "predict_proba"
        and yhat.ndim == 2
        and reg in ("roc_auc", "average_precision")
    ):
        yhat = yhat[:, 1]
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    K, n = classes.shape[0], yhat.shape[0]
    if K > 1000:
        raise ValueError(
            f"The no-information rate of {owner} for scoring {resolved.name} on a "
            f"target with {K} distinct values is not available (regression targets "
            "need one of the scorers of mean_squared_error, root_mean_squared_error, "
            "mean_absolute_error or r2). Use rule='.632' or 'oob'."
        )
    y_pairs = np.repeat(classes, n)
    yhat_pairs = np.tile(yhat, (K,) + (1,) * (yhat.ndim - 1))
    w = np.repeat(counts / counts.sum(), n) / n
    if reg is not None:
        prepared = METRICS[reg].prepare(y_pairs, yhat_pairs, **resolved.options)
        return resolved.sign * float(prepared.kernel(*prepared.args, w))
    assert resolved.func is not None
    if not accepts(resolved.func, "sample_weight"):
        raise ValueError(
            f"The no-information rate of {owner} needs a metric that accepts "
            f"sample_weight. Got {resolved.name} instead; use rule='.632' or 'oob'."
        )
    value = resolved.func(y_pairs, yhat_pairs, sample_weight=w, **resolved.options)
    return resolved.sign * float(value)


def pairwise_mae(y: np.ndarray, yhat: np.ndarray) -> float:
    """``mean_{i,j} |y_i - yhat_j|`` in O(n log n): sort, search, prefix sums."""
    s = np.sort(yhat)
    prefix = np.concatenate(([0.0], np.cumsum(s)))
    m = s.shape[0]
    k = np.searchsorted(s, y, side="left")  # yhat_j < y_i for j < k
    below = y * k - prefix[k]
    above = (prefix[m] - prefix[k]) - y * (m - k)
    return float((below + above).sum() / (y.shape[0] * m))

"""The curve bands against the ROC AUC interval on the same data.

* ``roc_band_stratified``: ``roc_curve_band`` (101-point grid, its default
  stratified resampler) against ``metric_ci(..., "roc_auc", stratify=True,
  method="percentile")`` in the ``skboot ref`` column: the same replicates
  (the same rows drawn), a curve on a grid instead of one area;
* ``roc_band_iid``: both with the iid ``Bootstrap`` (``metric_ci``'s default
  resampler);
* ``roc_compare_stratified``: ``compare_roc_curves`` of two models (the
  difference of their curves on the same replicates, each replicate's counts
  written once and read by one pass per model) against the two single bands
  ``roc_curve_band(y, score_a)`` and ``roc_curve_band(y, score_b)`` with the
  same seed (the same replicates, drawn twice) in the ``skboot ref`` column.

n = 100,000 rows (30% positives), B = 1,000 (200 with ``--quick``).  Floors: the
band within 1.5x of the interval's time (ratio ref / skboot >= 1 / 1.5); the
comparison no slower than the two bands (ratio >= 1).  The
groups are merged into :data:`benchmarks.speed.GROUPS`, so ``python -m
benchmarks --only roc_band`` runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._harness import NA, Floor, Group, Row

__all__ = ["GROUPS"]

SOURCE = "curve bands"


def _band(kind: str) -> Callable[[Any], Group]:
    def group(cfg: Any) -> Group:
        import skboot
        from skboot.metrics import roc_curve_band

        n, B = 100_000, (200 if cfg.quick else 1_000)
        rng = np.random.default_rng(28)
        y = (rng.random(n) < 0.3).astype(np.int64)
        score = 0.8 * y + rng.normal(size=n)
        stratified = kind == "stratified"
        band_kw: dict[str, Any] = (
            {} if stratified else {"resampler": skboot.Bootstrap()}
        )
        impls: dict[str, Callable[[], Any]] = {
            "skboot": lambda: roc_curve_band(
                y, score, n_resamples=B, random_state=0, **band_kw
            ),
            "ref": lambda: skboot.metric_ci(
                y,
                score,
                "roc_auc",
                n_resamples=B,
                random_state=0,
                stratify=stratified,
                method="percentile",
            ),
        }
        peers: dict[str, str | NA] = {
            "scipy": NA("—"),
            "arch": NA("—"),
            "tsbootstrap": NA("—"),
            "ref": "ref",
        }
        what = "stratified" if stratified else "iid"
        row = Row(
            f"roc_band_{kind}",
            f"roc_curve_band, 101 points, {what}, n={n:,}, B={B:,}",
            "skboot",
            peers,
            floors=[Floor("ref", 1 / 1.5, SOURCE)],
            notes={"ref": f"metric_ci roc_auc, {what}, percentile"},
            draws=n * B,
        )
        return Group(f"roc_band_{kind}", impls, [row], params={"n": n, "B": B})

    return group


def _compare(cfg: Any) -> Group:
    from skboot.metrics import compare_roc_curves, roc_curve_band

    n, B = 100_000, (200 if cfg.quick else 1_000)
    rng = np.random.default_rng(28)
    y = (rng.random(n) < 0.3).astype(np.int64)
    shared = rng.normal(size=n)
    score_a = 0.8 * y + 0.6 * shared + 0.8 * rng.normal(size=n)
    score_b = 0.6 * y + 0.6 * shared + 0.8 * rng.normal(size=n)

    def two_bands() -> Any:
        band_a = roc_curve_band(y, score_a, n_resamples=B, random_state=0)
        band_b = roc_curve_band(
            y, score_b, fpr_grid=band_a.grid, n_resamples=B, random_state=0
        )
        return band_a.distribution - band_b.distribution

    impls: dict[str, Callable[[], Any]] = {
        "skboot": lambda: compare_roc_curves(
            y, score_a, score_b, n_resamples=B, random_state=0
        ),
        "ref": two_bands,
    }
    peers: dict[str, str | NA] = {
        "scipy": NA("—"),
        "arch": NA("—"),
        "tsbootstrap": NA("—"),
        "ref": "ref",
    }
    row = Row(
        "roc_compare_stratified",
        f"compare_roc_curves, 101 points, stratified, n={n:,}, B={B:,}",
        "skboot",
        peers,
        floors=[Floor("ref", 1.0, SOURCE)],
        notes={"ref": "two roc_curve_band runs on the same replicates"},
        draws=n * B,
    )
    return Group("roc_compare_stratified", impls, [row], params={"n": n, "B": B})


GROUPS: dict[str, Callable[[Any], Group]] = {
    "roc_band_stratified": _band("stratified"),
    "roc_band_iid": _band("iid"),
    "roc_compare_stratified": _compare,
}

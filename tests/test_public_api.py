"""The public API keeps one name per concept and one result protocol.

* Every parameter of every public function, constructor and method in
  ``skboot.__all__`` is a name of the glossary (docs/guide/glossary.md): a new name
  is a decision written there first, not an accident.
* Names replaced by the glossary do not come back (no aliases).
* Every result class in ``skboot.__all__`` follows the protocol of
  ``skboot._results.Result``: a frozen dataclass, ``==`` that compares fields
  without raising, a short repr, ``to_dict``, ``to_frame``, ``plot(ax=None)``, and
  a verified ``save``/``load`` round trip; each is checked on a real result.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import skboot
from skboot._results import Result

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "guide" / "glossary.md"

#: Replaced names: (name, what replaced it).  None of them may appear as a
#: parameter, a result field or a public attribute of a result.
REPLACED = {
    "p_value": "pvalue",
    "p_value_at": "pvalue_at",
    "size": "level",
    "criterion": "order",
    "oob_scores": "distribution",
    "simulated": "null_distribution",
    "model_pvalues": "pvalues",
    "interval": "confidence_interval()",
    "bootstrap_pvalue": "BootstrapResult.pvalue",
}


def _glossary_names() -> set[str]:
    text = GLOSSARY.read_text(encoding="utf-8")
    section = text.split("## Parameters", 1)[1].split("## Results", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            names.update(re.findall(r"`(\w+)`", first_cell))
    return names


def _public_callables():
    for name in skboot.__all__:
        obj = getattr(skboot, name)
        if inspect.isclass(obj):
            if issubclass(obj, BaseException):
                continue
            if not dataclasses.is_dataclass(obj):
                yield f"{name}()", obj.__init__
            for attr in sorted(dir(obj)):
                owner = next((k for k in obj.__mro__ if attr in vars(k)), None)
                if attr.startswith("_") or not owner.__module__.startswith("skboot"):
                    continue
                member = vars(owner)[attr]
                func = (
                    member.__func__
                    if isinstance(member, (classmethod, staticmethod))
                    else member
                )
                if inspect.isfunction(func):
                    yield f"{name}.{attr}", func
        elif callable(obj):
            yield name, obj


def _parameters(func):
    for p in inspect.signature(func).parameters.values():
        if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        yield p


RESULT_CLASSES = sorted(
    name
    for name in skboot.__all__
    if inspect.isclass(getattr(skboot, name))
    and dataclasses.is_dataclass(getattr(skboot, name))
)


def test_glossary_lists_names():
    names = _glossary_names()
    assert {"statistic", "n_resamples", "random_state", "level", "method"} <= names
    assert not names & set(REPLACED)


def test_every_public_parameter_is_a_glossary_name():
    names = _glossary_names()
    unknown = sorted(
        f"{where}({p.name})"
        for where, func in _public_callables()
        for p in _parameters(func)
        if p.name not in names
    )
    assert not unknown, (
        "parameters not in docs/guide/glossary.md (add the name there, or use the "
        "glossary's name):\n" + "\n".join(unknown)
    )


def test_replaced_names_do_not_come_back():
    assert not set(REPLACED) & set(skboot.__all__)
    found = []
    for where, func in _public_callables():
        found += [f"{where}({p.name})" for p in _parameters(func) if p.name in REPLACED]
    for name in RESULT_CLASSES:
        cls = getattr(skboot, name)
        attrs = {f.name for f in dataclasses.fields(cls)} | {
            a for a in dir(cls) if not a.startswith("_")
        }
        found += [f"{name}.{a}" for a in sorted(attrs & set(REPLACED))]
    assert not found, "replaced names still in use: " + ", ".join(found)


def test_method_parameters_are_interval_methods():
    """``method`` is the confidence-interval method and nothing else."""
    allowed = {None, "percentile", "basic", "normal", "bc", "bca", "studentized"}
    wrong = [
        f"{where}(method={p.default!r})"
        for where, func in _public_callables()
        for p in _parameters(func)
        if p.name == "method" and p.default is not p.empty and p.default not in allowed
    ]
    assert not wrong, wrong


@pytest.mark.parametrize("name", RESULT_CLASSES)
def test_result_class_declares_the_protocol(name):
    cls = getattr(skboot, name)
    assert issubclass(cls, Result), f"{name} does not subclass skboot._results.Result"
    params = cls.__dataclass_params__
    assert params.frozen and not params.eq and not params.repr, name
    for attr in ("to_dict", "to_frame", "plot", "save", "load"):
        assert callable(getattr(cls, attr, None)), f"{name}.{attr}"
    plot = inspect.signature(cls.plot).parameters
    first = list(plot)[1]
    assert first == "ax" and plot["ax"].default is None, f"{name}.plot(ax=None, ...)"


# ---------------------------------------------------------------------------
# every result, built for real
# ---------------------------------------------------------------------------
def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=60)


def _predictions():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, size=80)
    score = np.clip(0.3 * y + rng.uniform(size=80) * 0.7, 0, 1)
    other = rng.uniform(size=80)
    return y, score, other


def _losses():
    rng = np.random.default_rng(2)
    bench = rng.normal(1.0, 1.0, size=120) ** 2
    models = rng.normal(1.0, 1.0, size=(120, 3)) ** 2
    models[:, 0] -= 0.3
    return bench, models


def _build(name):
    x = _data()
    y, score, other = _predictions()
    bench, models = _losses()
    kw = {"n_resamples": 199, "random_state": 0}
    if name == "BootstrapResult":
        return skboot.bootstrap(x, "mean", **kw)
    if name == "ConfidenceInterval":
        return skboot.bootstrap(x, "mean", **kw).confidence_interval()
    if name == "ABCInterval":
        return skboot.abc_interval(x, "var")
    if name == "MetricCI":
        return skboot.metric_ci(y, score, "roc_auc", method="percentile", **kw)
    if name == "MetricComparison":
        return skboot.compare_metrics(
            y, score, other, "roc_auc", method="percentile", **kw
        )
    if name == "BootstrapScore":
        from sklearn.linear_model import LogisticRegression

        X = np.column_stack([score, other])
        return skboot.bootstrap_score(
            LogisticRegression(),
            X,
            y,
            scoring="accuracy",
            n_resamples=20,
            random_state=0,
        )
    if name == "PermutationTestResult":
        return skboot.permutation_test((x[:30], x[30:]), "mean_diff", **kw)
    if name == "MonteCarloTestResult":
        return skboot.monte_carlo_test(
            x, lambda size, random_state: random_state.normal(size=size), np.mean, **kw
        )
    if name == "MetricPermutationTestResult":
        return skboot.metric_permutation_test(y, score, "roc_auc", **kw)
    if name == "WildClusterResult":
        rng = np.random.default_rng(3)
        X = rng.normal(size=(80, 2))
        yy = X @ [1.0, 0.5] + rng.normal(size=80)
        return skboot.wild_cluster_bootstrap(
            X, yy, np.repeat(np.arange(10), 8), coef=1, **kw
        )
    if name == "WildClusterWaldResult":
        from skboot.model_based import wild_cluster_wald

        rng = np.random.default_rng(3)
        X = rng.normal(size=(80, 2))
        yy = X @ [1.0, 0.5] + rng.normal(size=80)
        return wild_cluster_wald(
            X, yy, np.repeat(np.arange(10), 8), coef=[0, 1], weights="webb", **kw
        )
    if name == "WildClusterIVResult":
        from skboot.model_based import wild_cluster_bootstrap_iv

        rng = np.random.default_rng(3)
        z = rng.normal(size=(80, 2))
        e = rng.normal(size=80)
        xx = z @ [1.0, 0.5] + e + rng.normal(size=80)
        return wild_cluster_bootstrap_iv(
            None, xx + e, xx, z, np.repeat(np.arange(10), 8), weights="webb", **kw
        )
    if name == "OptimalBlockLength":
        return skboot.optimal_block_length(np.cumsum(x) * 0.1 + x)
    if name == "SPAResult":
        return skboot.SPA(**kw).compute(bench, models)
    if name == "StepMResult":
        return skboot.StepM(**kw).compute(bench, models)
    if name == "MCSResult":
        return skboot.MCS(**kw).compute(np.column_stack([bench, models]))
    if name == "CurveBand":
        return skboot.roc_curve_band(y, score, **kw)
    if name == "CurveComparison":
        return skboot.compare_roc_curves(y, score, score[::-1].copy(), **kw)
    raise AssertionError(f"no example result for {name}: add one to _build")


@pytest.mark.parametrize("name", RESULT_CLASSES)
def test_result_protocol_on_a_real_result(name, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first, again = _build(name), _build(name)
    assert type(first).__name__ == name
    # equality: field by field, never raising, not identity
    assert first == again
    assert not first.__ne__(again)
    assert (first == object()) is False
    with pytest.raises(TypeError):
        hash(first)
    # a short repr
    text = repr(first)
    assert text.startswith(name + "(") and len(text) < 400 and "\n" not in text
    # dict and frame
    as_dict = first.to_dict()
    assert isinstance(as_dict, dict) and as_dict
    assert not any(k.startswith("_") for k in as_dict)
    frame = first.to_frame()
    assert isinstance(frame, pd.DataFrame) and frame.shape[0] >= 1
    # plot on a given Axes and on a new one
    _, ax = plt.subplots()
    assert first.plot(ax=ax) is ax
    made = first.plot()
    assert made is not None and hasattr(made, "figure")
    plt.close("all")
    # the verified file round trip
    path = tmp_path / f"{name}.npz"
    first.save(path)
    loaded = type(first).load(path)
    assert loaded == first
    assert repr(loaded) == repr(first)

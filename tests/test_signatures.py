"""Public signatures are typed beyond ``Any`` (issue 14).

Every function in ``skboot.__all__``, the constructor of every class there and the
public methods those classes define must annotate each parameter and the return
value, with something more precise than a bare ``Any`` (``Callable[..., Any]`` or
``dict[str, Any]`` are fine: the outer type says what is accepted).

``EXCEPTIONS`` lists the annotations that stay ``Any``, each with its reason.
``PENDING`` lists the ones not typed yet; the test fails when one of them gets
typed, so the list only shrinks.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import skboot

#: (callable, parameter) -> why ``Any`` is the right annotation.
EXCEPTIONS: dict[tuple[str, str], str] = {
    **{
        (name, "**metric_options"): "forwarded as is to the user's metric"
        for name in (
            "skboot.metric_ci",
            "skboot.compare_metrics",
            "skboot.metric_permutation_test",
            "skboot.MCS.compute_metric",
            "skboot.SPA.compute_metric",
            "skboot.StepM.compute_metric",
            "skboot.RealityCheck.compute_metric",
        )
    },
    **{
        (name, "**kwargs"): "forwarded as is to matplotlib"
        for name in (
            "skboot.BootstrapStatistic.plot",
            "skboot.BootstrapResult.plot",
            "skboot.ConfidenceInterval.plot",
            "skboot.ABCInterval.plot",  # ConfidenceInterval's
            "skboot.CurveBand.plot",
            "skboot.CurveComparison.plot",  # CurveBand's
            *(
                f"skboot.{display}.{method}"
                for display in ("RocCurveBandDisplay", "PrecisionRecallBandDisplay")
                for method in (
                    "plot",
                    "from_predictions",
                    "from_estimator",
                    "from_metric_ci",
                )
            ),
        )
    },
    ("skboot.BootstrapStatistic.confidence_interval", "**kwargs"): (
        "forwarded to BootstrapResult.confidence_interval, whose own signature is typed"
    ),
}

#: (callable, parameter or "return") still ``Any``, to be typed: the resamplers'
#: ``random_state`` (skboot/resamplers is being changed on another branch of issue
#: 14; ``skboot._typing.RandomStateLike`` is the type) and the matplotlib ``ax`` of
#: the plot methods.
PENDING: frozenset[tuple[str, str]] = frozenset(
    {
        *(
            (f"skboot.{name}", "random_state")
            for name in (
                "BayesianBootstrap",
                "Bootstrap",
                "CircularBlockBootstrap",
                "GroupBootstrap",
                "MovingBlockBootstrap",
                "NonOverlappingBlockBootstrap",
                "Permutation",
                "PoissonBootstrap",
                "StationaryBootstrap",
                "StratifiedBootstrap",
                "TaperedBlockBootstrap",
            )
        ),
        *(
            (f"skboot.{cls}.plot", name)
            for cls in (
                "BootstrapResult",
                "BootstrapStatistic",
                "ConfidenceInterval",
                "ABCInterval",
            )
            for name in ("ax", "return")
        ),
    }
)


def _callables() -> list[tuple[str, object]]:
    out = []
    for name in skboot.__all__:
        obj = getattr(skboot, name)
        dotted = f"skboot.{name}"
        if inspect.isfunction(obj):
            out.append((dotted, obj))
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            out.append((dotted, obj))
            for attr in sorted(dir(obj)):
                # inherited methods too, where a skboot class defines them
                owner = next((k for k in obj.__mro__ if attr in vars(k)), None)
                if attr.startswith("_") or not owner.__module__.startswith("skboot"):
                    continue
                member = vars(owner)[attr]
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member):
                    out.append((f"{dotted}.{attr}", member))
    return out


def _is_any(annotation: object) -> bool:
    return annotation in ("Any", "typing.Any") or repr(annotation) == "typing.Any"


def _untyped(dotted: str, obj: object) -> list[str]:
    """The parameters (``"**kwargs"`` for a var-keyword one) and ``"return"`` of
    ``obj`` that are unannotated or annotated with a bare ``Any``."""
    sig = inspect.signature(obj)  # a class: its constructor, without self
    out = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        label = {p.VAR_KEYWORD: "**", p.VAR_POSITIONAL: "*"}.get(p.kind, "") + p.name
        if p.annotation is p.empty or _is_any(p.annotation):
            out.append(label)
    if not inspect.isclass(obj) and (
        sig.return_annotation is sig.empty or _is_any(sig.return_annotation)
    ):
        out.append("return")
    return out


CALLABLES = _callables()


@pytest.mark.parametrize(("dotted", "obj"), CALLABLES, ids=[d for d, _ in CALLABLES])
def test_public_signature_is_typed(dotted, obj):
    untyped = _untyped(dotted, obj)
    unexpected = [
        f"{dotted}: {name}"
        for name in untyped
        if (dotted, name) not in EXCEPTIONS and (dotted, name) not in PENDING
    ]
    assert not unexpected, "annotate (beyond Any): " + ", ".join(unexpected)
    typed_now = sorted(
        name for d, name in PENDING if d == dotted and name not in untyped
    )
    assert not typed_now, f"{dotted}: typed now, remove from PENDING: {typed_now}"


def test_exceptions_are_current():
    # An exception for a parameter that is typed (or gone) is stale.
    found = {(d, n) for d, obj in CALLABLES for n in _untyped(d, obj)}
    assert set(EXCEPTIONS) <= found, sorted(set(EXCEPTIONS) - found)


def test_the_check_can_fail():
    def untyped(x, y: int = 0):
        return x

    def loose(x: Any) -> Any:
        return x

    assert _untyped("f", untyped) == ["x", "return"]
    assert _untyped("g", loose) == ["x", "return"]

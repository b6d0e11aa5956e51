"""Tests of the resamplers (skboot.resamplers).

Shared checks run on every resampler of the module-level lists (as scikit-learn's
``test_split.py`` does); then one table of every error message; then the
statistics of each scheme, each with its tolerance and false-failure probability;
then the scikit-learn integration (cross_validate, GridSearchCV,
RandomizedSearchCV, learning_curve), with metadata routing off and on.
"""

from __future__ import annotations

import inspect
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal
from scipy import stats
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_validate,
    learning_curve,
)

from skboot.resamplers import (
    BaseResampler,
    BayesianBootstrap,
    Bootstrap,
    CircularBlockBootstrap,
    GroupBootstrap,
    MovingBlockBootstrap,
    NonOverlappingBlockBootstrap,
    Permutation,
    PoissonBootstrap,
    Replicate,
    StationaryBootstrap,
    StratifiedBootstrap,
    TaperedBlockBootstrap,
)

REPO = Path(__file__).resolve().parents[1]

#: Every resampler whose split() yields in-bag indices, as (class, extra
#: constructor kwargs).
INDEX_RESAMPLERS = [
    (Bootstrap, {}),
    (Bootstrap, {"sample_size": 25}),
    (Bootstrap, {"sample_size": 0.5}),
    (StratifiedBootstrap, {}),
    (GroupBootstrap, {}),
    (PoissonBootstrap, {}),
    (MovingBlockBootstrap, {"block_length": 5}),
    (MovingBlockBootstrap, {}),  # block_length="auto": estimated from X
    (CircularBlockBootstrap, {"block_length": 5}),
    (NonOverlappingBlockBootstrap, {"block_length": 7}),
    (StationaryBootstrap, {"block_length": 4.5}),
    (Permutation, {}),
]
#: Resamplers whose replicates are weight vectors (split() raises).
WEIGHT_RESAMPLERS = [
    (BayesianBootstrap, {}),
    (TaperedBlockBootstrap, {"block_length": 5}),
]
ALL_RESAMPLERS = INDEX_RESAMPLERS + WEIGHT_RESAMPLERS
BLOCK_CLASSES = (
    MovingBlockBootstrap,
    CircularBlockBootstrap,
    NonOverlappingBlockBootstrap,
    StationaryBootstrap,
    TaperedBlockBootstrap,
)


def _weights_only(cls) -> bool:
    return any(cls is c for c, _ in WEIGHT_RESAMPLERS)


def _first_spec(cls):
    """The first listed spec of a class (explicit block lengths for blocks)."""
    return next(spec for spec in ALL_RESAMPLERS if spec[0] is cls)


def _id(spec) -> str:
    cls, kw = spec
    return cls.__name__ + "".join(f"-{k}={v}" for k, v in kw.items())


def make(spec, **params) -> BaseResampler:
    cls, kw = spec
    return cls(**{**kw, **params})


index_resamplers = pytest.mark.parametrize(
    "spec", INDEX_RESAMPLERS, ids=[_id(s) for s in INDEX_RESAMPLERS]
)
all_resamplers = pytest.mark.parametrize(
    "spec", ALL_RESAMPLERS, ids=[_id(s) for s in ALL_RESAMPLERS]
)


def test_lists_cover_every_public_resampler() -> None:
    import skboot.resamplers as mod

    public = {
        obj
        for name in mod.__all__
        if inspect.isclass(obj := getattr(mod, name))
        and issubclass(obj, BaseResampler)
        and not inspect.isabstract(obj)
    }
    assert public == {cls for cls, _ in ALL_RESAMPLERS}


# ---------------------------------------------------------------------------
# shared checks: split / replicate / get_n_splits agree
# ---------------------------------------------------------------------------
def _splits(rs, data):
    X, y, groups = data
    return list(rs.split(X, y, groups))


@index_resamplers
@pytest.mark.parametrize("order", ["forward", "reverse", "random"])
@pytest.mark.parametrize("random_state", [0, None])
def test_replicate_matches_split(spec, order, random_state, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=7, random_state=random_state).fit(X, y, groups)
    splits = _splits(rs, labelled_data)
    assert len(splits) == 7
    bs = list(range(7))
    if order == "reverse":
        bs = bs[::-1]
    elif order == "random":
        bs = np.random.default_rng(1).permutation(7).tolist()
    for b in bs:
        rep = rs.replicate(b)
        assert isinstance(rep, Replicate)
        train, test = splits[b]
        assert_array_equal(rep.indices, train)
        assert_array_equal(rep.oob, test)
        assert_array_equal(rep.counts, np.bincount(train, minlength=len(X)))
        assert_array_equal(rep.weights, rep.counts.astype(np.float64))
        assert rep.counts.dtype == np.int64
        assert rep.weights.dtype == np.float64
    # a second pass over the fitted resampler gives the same splits
    for (a_tr, a_te), (b_tr, b_te) in zip(
        splits, _splits(rs, labelled_data), strict=True
    ):
        assert_array_equal(a_tr, b_tr)
        assert_array_equal(a_te, b_te)


@index_resamplers
def test_int_seed_is_the_same_fitted_or_not(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    unfitted = _splits(make(spec, n_resamples=4, random_state=3), labelled_data)
    again = _splits(make(spec, n_resamples=4, random_state=3), labelled_data)
    fitted = make(spec, n_resamples=4, random_state=3).fit(X, y, groups)
    other = _splits(make(spec, n_resamples=4, random_state=4), labelled_data)
    for b, (train, test) in enumerate(unfitted):
        assert_array_equal(train, again[b][0])
        assert_array_equal(train, fitted.replicate(b).indices)
        assert_array_equal(test, fitted.replicate(b).oob)
    assert any(
        not np.array_equal(u[0], o[0]) for u, o in zip(unfitted, other, strict=True)
    )


@index_resamplers
@pytest.mark.parametrize("random_state", [None, "generator"])
def test_unfitted_non_int_seed_draws_a_fresh_key_per_split(
    spec, random_state, labelled_data
) -> None:
    """Like scikit-learn's splitters with random_state=None: two calls of split on
    an unfitted resampler differ (equal first replicates have probability below
    1e-12 here: 12 groups give 12**-12, 60 rows far less)."""
    if random_state == "generator":
        random_state = np.random.default_rng(0)
    rs = make(spec, n_resamples=2, random_state=random_state)
    a = _splits(rs, labelled_data)
    b = _splits(rs, labelled_data)
    assert not np.array_equal(a[0][0], b[0][0])


@index_resamplers
def test_generator_seed_fitted_split_and_replicate_agree(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=3, random_state=np.random.default_rng(5))
    rs.fit(X, y, groups)
    for b, (train, test) in enumerate(_splits(rs, labelled_data)):
        assert_array_equal(rs.replicate(b).indices, train)
        assert_array_equal(rs.replicate(b).oob, test)
    # the recorded entropy repeats the run
    again = make(spec, n_resamples=3, random_state=rs.seed_entropy_)
    for (a, _), (c, _) in zip(
        _splits(rs, labelled_data), _splits(again, labelled_data), strict=True
    ):
        assert_array_equal(a, c)


_SUBPROCESS = """
import json, sys
import numpy as np
import skboot.resamplers
spec = json.loads(sys.argv[1])
rows = []
for name, kw, seed, weights_only in spec["cases"]:
    cls = getattr(skboot.resamplers, name)
    X = np.asarray(spec["X"])
    y = np.asarray(spec["y"])
    groups = np.asarray(spec["groups"])
    rs = cls(n_resamples=3, random_state=seed, **kw)
    if weights_only:
        rs.fit(X, y, groups)
        rows.append([rs.replicate(b).weights.tolist() for b in range(3)])
    else:
        rows.append([[tr.tolist(), te.tolist()] for tr, te in rs.split(X, y, groups)])
print(json.dumps(rows))
"""


def _in_process_rows(cases, data):
    X, y, groups = data
    import skboot.resamplers

    rows = []
    for name, kw, seed, weights_only in cases:
        cls = getattr(skboot.resamplers, name)
        rs = cls(n_resamples=3, random_state=seed, **kw)
        if weights_only:
            rs.fit(X, y, groups)
            rows.append([rs.replicate(b).weights.tolist() for b in range(3)])
        else:
            rows.append(
                [[tr.tolist(), te.tolist()] for tr, te in rs.split(X, y, groups)]
            )
    return rows


def test_same_seed_same_indices_in_a_fresh_process(labelled_data) -> None:
    """An int seed, and the entropy recorded by a random_state=None fit, give the
    same replicates in another interpreter."""
    X, y, groups = labelled_data
    cases = [
        (cls.__name__, kw, 12345, _weights_only(cls)) for cls, kw in ALL_RESAMPLERS
    ]
    # entropy recorded by fitting with random_state=None, replayed elsewhere
    for cls, kw in ALL_RESAMPLERS:
        fitted = cls(n_resamples=3, random_state=None, **kw).fit(X, y, groups)
        assert isinstance(fitted.seed_entropy_, int)
        cases.append((cls.__name__, kw, fitted.seed_entropy_, _weights_only(cls)))
    spec = {
        "cases": cases,
        "X": X.tolist(),
        "y": y.tolist(),
        "groups": groups.tolist(),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS, json.dumps(spec)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == _in_process_rows(cases, labelled_data)


@index_resamplers
def test_get_n_splits_matches_split(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    for n_resamples in (1, 2, 11):
        rs = make(spec, n_resamples=n_resamples, random_state=0)
        assert rs.get_n_splits() == n_resamples
        assert rs.get_n_splits(X, y, groups) == n_resamples
        assert len(_splits(rs, labelled_data)) == n_resamples


@all_resamplers
def test_default_n_resamples(spec) -> None:
    assert make(spec).get_n_splits() == 9999


@index_resamplers
def test_split_is_a_lazy_generator(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=10**9, random_state=0)  # never materialized
    it = rs.split(X, y, groups)
    assert inspect.isgenerator(it)
    train, test = next(it)
    assert train.ndim == test.ndim == 1
    assert np.issubdtype(train.dtype, np.integer)
    assert np.issubdtype(test.dtype, np.integer)


@index_resamplers
def test_split_validates_at_the_call(spec, labelled_data) -> None:
    """A bad argument fails when split() is called, not at the first next()."""
    X, y, groups = labelled_data
    with pytest.raises(ValueError):
        make(spec, n_resamples=0).split(X, y, groups)
    with pytest.raises(ValueError):
        make(spec, random_state=-1).split(X, y, groups)
    with pytest.raises(ValueError):
        make(spec).split(X[:1], y[:1], groups[:1])


@index_resamplers
def test_in_bag_and_out_of_bag_partition_the_rows(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    n = len(X)
    rs = make(spec, n_resamples=20, random_state=1).fit(X, y, groups)
    for b, (train, test) in enumerate(_splits(rs, labelled_data)):
        assert ((train >= 0) & (train < n)).all()
        assert_array_equal(test, np.unique(test))  # ascending, no repeats
        assert np.intersect1d(train, test).size == 0
        assert_array_equal(np.union1d(train, test), np.arange(n))
        counts = rs.replicate(b).counts
        assert counts.sum() == len(train)
        assert_array_equal(np.flatnonzero(counts == 0), test)


@index_resamplers
def test_replicate_sizes(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    n = len(X)
    rs = make(spec, n_resamples=10, random_state=2).fit(X, y, groups)
    sizes = [len(train) for train, _ in _splits(rs, labelled_data)]
    cls, kw = spec
    if cls is Bootstrap:
        expected = {None: n, 25: 25, 0.5: 30}[kw.get("sample_size")]
        assert sizes == [expected] * 10
        assert rs.plan_.replicate_size == expected
    elif cls in (StratifiedBootstrap, Permutation) or cls in BLOCK_CLASSES:
        assert sizes == [n] * 10
    else:  # group sizes differ / Poisson counts vary around n
        assert len(set(sizes)) > 1


@all_resamplers
def test_plan_chunk_paths_agree_with_replicate(spec, labelled_data) -> None:
    """The engine reads the stream through ``fill_weights_chunk`` (and, for a fixed
    layout, ``fill_indices_chunk``); any chunking gives the replicate's values."""
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=6, random_state=4).fit(X, y, groups)
    plan = rs.plan_
    for b0, rows in [(0, 6), (2, 3), (5, 1)]:
        w = np.full((rows, len(X)), -1.0)
        plan.fill_weights_chunk(b0, w)
        for k in range(rows):
            assert_array_equal(w[k], rs.replicate(b0 + k).weights)
        if plan.layout == "fixed":
            idx = np.full((rows, plan.replicate_size), -1, plan.index_dtype)
            plan.fill_indices_chunk(b0, idx)
            for k in range(rows):
                assert_array_equal(idx[k], rs.replicate(b0 + k).indices)


# ---------------------------------------------------------------------------
# estimator manners: repr, params, clone, pickle, no mutation
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "rs, expected",
    [
        (Bootstrap(), "Bootstrap()"),
        (
            Bootstrap(n_resamples=3, random_state=0),
            "Bootstrap(n_resamples=3, random_state=0)",
        ),
        (Bootstrap(sample_size=0.5), "Bootstrap(sample_size=0.5)"),
        (StratifiedBootstrap(100), "StratifiedBootstrap(n_resamples=100)"),
        (GroupBootstrap(random_state=1), "GroupBootstrap(random_state=1)"),
        (
            PoissonBootstrap(5, random_state=2),
            "PoissonBootstrap(n_resamples=5, random_state=2)",
        ),
        (BayesianBootstrap(), "BayesianBootstrap()"),
        (MovingBlockBootstrap(block_length=5), "MovingBlockBootstrap(block_length=5)"),
        (
            TaperedBlockBootstrap(3, block_length=4, taper_c=0.5),
            "TaperedBlockBootstrap(block_length=4, n_resamples=3, taper_c=0.5)",
        ),
    ],
)
def test_repr(rs, expected) -> None:
    assert repr(rs) == expected


@all_resamplers
def test_get_params_set_params(spec, labelled_data) -> None:
    cls, kw = spec
    rs = make(spec, n_resamples=4, random_state=0)
    params = rs.get_params()
    defaults = {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name != "self"
    }
    expected = {**defaults, **kw, "n_resamples": 4, "random_state": 0}
    assert params == expected
    assert rs.set_params(n_resamples=6, random_state=1) is rs
    assert rs.get_n_splits() == 6
    assert rs.get_params()["random_state"] == 1
    assert repr(cls(**rs.get_params())) == repr(rs)
    with pytest.raises(ValueError, match="Invalid parameter"):
        rs.set_params(not_a_parameter=3)


@all_resamplers
def test_init_stores_parameters_verbatim(spec) -> None:
    """No validation in __init__ (scikit-learn convention): bad values are stored
    as given and rejected at fit/split."""
    rs = make(spec, n_resamples="many", random_state="x")
    assert rs.n_resamples == "many"
    assert rs.random_state == "x"
    assert not hasattr(rs, "key_")


def _outputs(rs, data):
    X, y, groups = data
    if _weights_only(type(rs)):
        fitted = rs.fit(X, y, groups) if not hasattr(rs, "plan_") else rs
        return [fitted.replicate(b).weights for b in range(rs.n_resamples)]
    return [a for pair in _splits(rs, data) for a in pair]


@all_resamplers
def test_clone_and_pickle_give_identical_replicates(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=4, random_state=9)
    ref = _outputs(rs, labelled_data)
    for other in (clone(rs), pickle.loads(pickle.dumps(rs))):
        assert repr(other) == repr(rs)
        for a, b in zip(ref, _outputs(other, labelled_data), strict=True):
            assert_array_equal(a, b)
    # a resampler fitted with random_state=None pickles with its key
    fitted = make(spec, n_resamples=4, random_state=None).fit(X, y, groups)
    loaded = pickle.loads(pickle.dumps(fitted))
    assert loaded.key_ == fitted.key_
    for a, b in zip(
        _outputs(fitted, labelled_data), _outputs(loaded, labelled_data), strict=True
    ):
        assert_array_equal(a, b)


@all_resamplers
@pytest.mark.parametrize("fitted", [False, True])
def test_split_and_replicate_do_not_mutate(spec, fitted, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=5, random_state=3)
    if fitted:
        rs.fit(X, y, groups)
    before = dict(rs.__dict__)
    before_pickle = pickle.dumps(rs)
    if _weights_only(type(rs)):
        with pytest.raises(ValueError):
            rs.split(X, y, groups)
    else:
        for _ in rs.split(X, y, groups):
            pass
    rs.get_n_splits(X, y, groups)
    if fitted:
        for b in range(5):
            rep = rs.replicate(b)
            _ = rep.weights
    assert rs.__dict__.keys() == before.keys()
    for k, v in before.items():
        assert rs.__dict__[k] is v, k
    assert pickle.dumps(rs) == before_pickle


def test_fit_records_the_key_and_data_layout(labelled_data) -> None:
    X, _, _ = labelled_data
    rs = Bootstrap(n_resamples=3, random_state=None)
    assert rs.fit(X) is rs
    assert rs.n_samples_ == 60
    assert rs.key_.entropy is not None
    again = Bootstrap(n_resamples=3, random_state=rs.seed_entropy_).fit(X)
    assert again.key_ == rs.key_
    # refitting with None draws a new key, as scikit-learn's refit would
    key = rs.key_
    rs.fit(X)
    assert rs.key_ != key


# ---------------------------------------------------------------------------
# every error message, one table
# ---------------------------------------------------------------------------
X60 = np.zeros((60, 2))
Y60 = np.arange(60) % 3
G60 = np.arange(60) % 6
_NR = r"must be an int in \[1, 2\*\*32 - 1\]"
_RS = (
    r"must be None, a non-negative int, a numpy SeedSequence, Generator or "
    r"RandomState\."
)
# the constraint table before the data; the bound n_samples once the data are seen
_SS = r"must be None, an int (>= 1|in \[1, n_samples=60\]) or a float in \(0, 1\]\."

_Y_NAN = np.where(np.arange(60) == 7, np.nan, Y60.astype(float))
_G_NAN = np.where(np.arange(60) == 3, np.nan, G60.astype(float))
_G_NONE = np.array(["a", "b"] * 29 + [None, "a"], dtype=object)
_Y_NONE = np.array([1, 2] * 29 + [1, None], dtype=object)


def _call(rs, call, kwargs):
    kwargs = dict(kwargs)
    if call == "split":
        return rs.split(**kwargs)  # NOT iterated: must raise at the call
    if call == "fit":
        return rs.fit(**kwargs)
    if call == "get_n_splits":
        return rs.get_n_splits(**kwargs)
    if call == "replicate":
        b = kwargs.pop("b")
        return rs.fit(**kwargs).replicate(b)
    if call == "indices":
        b = kwargs.pop("b")
        return rs.fit(**kwargs).replicate(b).indices
    if call == "counts":
        b = kwargs.pop("b")
        return rs.fit(**kwargs).replicate(b).counts
    if call == "oob":
        b = kwargs.pop("b")
        return rs.fit(**kwargs).replicate(b).oob
    raise AssertionError(call)


XY = {"X": X60, "y": Y60, "groups": G60}
#: Each resampler class once.
CLASSES = list(dict.fromkeys(cls for cls, _ in ALL_RESAMPLERS))

# (resampler, call, kwargs, exception, match)
ERROR_CASES = [
    # n_resamples: non-positive, non-integer, bool, float, None
    *[
        (
            make(_first_spec(cls), n_resamples=bad),
            call,
            XY,
            ValueError,
            rf"^The 'n_resamples' parameter of {cls.__name__} {_NR}\. Got "
            rf"{pat} instead\.$",
        )
        for cls in CLASSES
        for call in ("split", "fit", "get_n_splits")
        for bad, pat in [
            (0, "0"),
            (-5, "-5"),
            (2.0, r"2\.0"),
            (3.5, r"3\.5"),
            (True, "True"),
            ("10", "'10'"),
            (None, "None"),
        ]
    ],
    # random_state
    *[
        (
            make(_first_spec(cls), random_state=bad),
            call,
            XY,
            ValueError,
            rf"^The 'random_state' parameter of {cls.__name__} {_RS} Got {pat} "
            r"instead\.$",
        )
        for cls in CLASSES
        for call in ("split", "fit")
        for bad, pat in [(-1, "-1"), (1.5, r"1\.5"), ("seed", "'seed'"), (True, "True")]
    ],
    # sample_size out of range / wrong type
    *[
        (
            Bootstrap(sample_size=bad),
            call,
            XY,
            ValueError,
            rf"^The 'sample_size' parameter of Bootstrap {_SS} Got {pat} instead\.$",
        )
        for call in ("split", "fit")
        for bad, pat in [
            (0, "0"),
            (61, "61"),
            (-1, "-1"),
            (0.0, r"0\.0"),
            (1.5, r"1\.5"),
            (-0.5, r"-0\.5"),
            (float("nan"), "nan"),
            ("a", "'a'"),
            (True, "True"),
            (np.bool_(False), r"np\.False_"),
            ([10], r"\[10\]"),
        ]
    ],
    # fewer than 2 samples; X missing or not array-like
    *[
        (
            make(_first_spec(cls)),
            call,
            {"X": X60[:k], "y": Y60[:k], "groups": G60[:k]},
            ValueError,
            rf"^The 'X' parameter of {cls.__name__} must have at least 2 samples\. "
            rf"Got {k} instead\.$",
        )
        for cls in CLASSES
        for call in ("split", "fit")
        for k in (0, 1)
    ],
    (
        Bootstrap(),
        "split",
        {"X": None},
        ValueError,
        r"^The 'X' parameter of Bootstrap must be an array-like of samples\. Got "
        r"None instead\.$",
    ),
    (
        Bootstrap(),
        "split",
        {"X": 5},
        ValueError,
        r"^The 'X' parameter of Bootstrap must be an array-like with a first axis of "
        r"samples\. Got int instead\.$",
    ),
    # y / groups length mismatch (all resamplers, as scikit-learn splitters)
    *[
        (
            make(_first_spec(cls)),
            call,
            {**XY, name: XY[name][:-1]},
            ValueError,
            rf"^The '{name}' parameter of {cls.__name__} must have one entry per "
            r"sample of X \(60\)\. Got 59 instead\.$",
        )
        for cls in CLASSES
        for call in ("split", "fit")
        for name in ("y", "groups")
    ],
    (
        Bootstrap(),
        "split",
        {"X": X60, "y": 3},
        ValueError,
        r"^The 'y' parameter of Bootstrap must be an array-like with a first axis "
        r"of samples\. Got int instead\.$",
    ),
    # missing y / groups
    *[
        (
            StratifiedBootstrap(),
            call,
            {"X": X60, "groups": G60},
            ValueError,
            r"^The 'y' parameter of StratifiedBootstrap is required: pass y=\.\.\. to "
            r"split/fit\. Got None instead\.$",
        )
        for call in ("split", "fit")
    ],
    *[
        (
            GroupBootstrap(),
            call,
            {"X": X60, "y": Y60},
            ValueError,
            r"^The 'groups' parameter of GroupBootstrap is required: pass "
            r"groups=\.\.\. to split/fit\. Got None instead\.$",
        )
        for call in ("split", "fit")
    ],
    # a single group
    *[
        (
            GroupBootstrap(),
            call,
            {"X": X60, "groups": np.full(60, "g")},
            ValueError,
            r"^The 'groups' parameter of GroupBootstrap must contain at least 2 "
            r"distinct groups\. Got 1 instead\.$",
        )
        for call in ("split", "fit")
    ],
    # NaN / None labels
    (
        StratifiedBootstrap(),
        "split",
        {"X": X60, "y": _Y_NAN},
        ValueError,
        r"^The 'y' parameter of StratifiedBootstrap must not contain NaN\. Got 1 NaN "
        r"label\(s\) instead\.$",
    ),
    (
        GroupBootstrap(),
        "split",
        {"X": X60, "groups": _G_NAN},
        ValueError,
        r"^The 'groups' parameter of GroupBootstrap must not contain NaN\. Got 1 NaN "
        r"label\(s\) instead\.$",
    ),
    (
        GroupBootstrap(),
        "split",
        {"X": X60, "groups": _G_NONE},
        ValueError,
        r"^The 'groups' parameter of GroupBootstrap must not contain missing labels "
        r"\(None/NaN\)\. Got 1 missing label\(s\) instead\.$",
    ),
    (
        StratifiedBootstrap(),
        "fit",
        {"X": X60, "y": _Y_NONE},
        ValueError,
        r"^The 'y' parameter of StratifiedBootstrap must not contain missing labels "
        r"\(None/NaN\)\. Got 1 missing label\(s\) instead\.$",
    ),
    (
        GroupBootstrap(),
        "split",
        {"X": X60, "groups": np.array([1, "a"] * 30, dtype=object)},
        ValueError,
        r"^The 'groups' parameter of GroupBootstrap must hold sortable labels of one "
        r"type\. Got mixed types instead",
    ),
    # 2-D y / groups
    (
        StratifiedBootstrap(),
        "split",
        {"X": X60, "y": np.zeros((60, 2))},
        ValueError,
        r"^The 'y' parameter of StratifiedBootstrap must be 1-D with one label per "
        r"sample\. Got an array of shape \(60, 2\) instead\.$",
    ),
    (
        GroupBootstrap(),
        "split",
        {"X": X60, "groups": np.zeros((60, 3))},
        ValueError,
        r"^The 'groups' parameter of GroupBootstrap must be 1-D with one label per "
        r"sample\. Got an array of shape \(60, 3\) instead\.$",
    ),
    # replicate(b): not fitted, out of range, not an int
    (
        Bootstrap(n_resamples=3),
        "replicate_unfitted",
        {},
        NotFittedError,
        r"^This Bootstrap instance is not fitted yet\. Call 'fit\(X, y, groups\)' "
        r"before replicate\(b\)\.$",
    ),
    *[
        (
            make(_first_spec(cls), n_resamples=3, random_state=0),
            "replicate",
            {**XY, "b": bad},
            ValueError,
            rf"^The 'b' parameter of {cls.__name__}\.replicate must be an int in "
            rf"\[0, 2\]\. Got {pat} instead\.$",
        )
        for cls in CLASSES
        for bad, pat in [(3, "3"), (-1, "-1"), (1.0, r"1\.0"), (True, "True")]
    ],
    # BayesianBootstrap has weights only
    (
        BayesianBootstrap(n_resamples=3),
        "split",
        XY,
        ValueError,
        r"^BayesianBootstrap has no in-bag indices: its replicates are continuous "
        r"weights, so split\(\) cannot yield index arrays\. Use "
        r"resampler\.replicate\(b\)\.weights",
    ),
    *[
        (
            BayesianBootstrap(n_resamples=3, random_state=0),
            attr,
            {**XY, "b": 0},
            ValueError,
            r"^BayesianBootstrap replicates are continuous weights; they have no "
            r"indices, counts or out-of-bag rows\. Use replicate\(b\)\.weights\.$",
        )
        for attr in ("indices", "counts", "oob")
    ],
]


def _case_id(case) -> str:
    rs, call, _, _, match = case
    return f"{type(rs).__name__}-{call}-{match[:60]}"


@pytest.mark.parametrize(
    "rs, call, kwargs, exc, match", ERROR_CASES, ids=[_case_id(c) for c in ERROR_CASES]
)
def test_error_messages(rs, call, kwargs, exc, match) -> None:
    rs = clone(rs)
    if call == "replicate_unfitted":
        with pytest.raises(exc, match=match):
            rs.replicate(0)
        return
    with pytest.raises(exc, match=match):
        _call(rs, call, kwargs)
    # a failed call leaves no fitted state behind
    assert not hasattr(rs, "key_") or call in {"replicate", "indices", "counts", "oob"}


def test_error_table_covers_every_resampler() -> None:
    assert {type(c[0]) for c in ERROR_CASES} == set(CLASSES)


@pytest.mark.parametrize(
    "sample_size, expected",
    [
        (1, 1),
        (60, 60),
        (25, 25),
        (np.int64(7), 7),
        (1.0, 60),
        (0.5, 30),
        (0.001, 1),
        (np.float32(0.25), 15),
        (None, 60),
    ],
)
def test_valid_sample_sizes(sample_size, expected) -> None:
    rs = Bootstrap(n_resamples=2, sample_size=sample_size, random_state=0)
    for train, _ in rs.split(X60):
        assert len(train) == expected


@pytest.mark.parametrize(
    "X",
    [np.zeros(2), [[0], [1]], np.zeros((2, 3, 4))],
    ids=["1d", "list", "3d"],
)
def test_minimum_valid_inputs(X) -> None:
    rs = Bootstrap(n_resamples=2, random_state=0)
    assert len(list(rs.split(X))) == 2


def test_column_vector_labels_are_accepted(labelled_data) -> None:
    """y / groups of shape (n, 1), as a one-column DataFrame gives, act as 1-D."""
    X, y, groups = labelled_data
    for rs, kw in [
        (StratifiedBootstrap(2, random_state=0), {"y": y}),
        (GroupBootstrap(2, random_state=0), {"groups": groups}),
    ]:
        flat = list(rs.split(X, **kw))
        column = list(rs.split(X, **{k: v[:, None] for k, v in kw.items()}))
        for (a, b), (c, d) in zip(flat, column, strict=True):
            assert_array_equal(a, c)
            assert_array_equal(b, d)


def test_pandas_inputs(labelled_data) -> None:
    pd = pytest.importorskip("pandas")
    X, y, groups = labelled_data
    df = pd.DataFrame(X, index=np.arange(100, 160))
    ys = pd.Series(y, index=df.index)
    gs = pd.Series([f"g{g}" for g in groups], index=df.index)
    for rs in (
        StratifiedBootstrap(3, random_state=0),
        GroupBootstrap(3, random_state=0),
    ):
        a = list(rs.split(df, ys, gs))
        b = list(rs.split(X, y, np.array([f"g{g}" for g in groups])))
        for (tr1, te1), (tr2, te2) in zip(a, b, strict=True):
            assert_array_equal(tr1, tr2)
            assert_array_equal(te1, te2)


# ---------------------------------------------------------------------------
# statistics of each scheme
# ---------------------------------------------------------------------------
def _oob_count_moments(n: int) -> tuple[float, float]:
    """Exact mean and variance of the number of out-of-bag rows of one iid
    bootstrap replicate of n rows (sum of n dependent indicators)."""
    p1 = (1 - 1 / n) ** n
    p2 = (1 - 2 / n) ** n
    mean = n * p1
    var = n * p1 + n * (n - 1) * p2 - mean**2
    return mean, var


def test_bootstrap_oob_fraction_matches_theory() -> None:
    """Mean OOB fraction over B = 4000 replicates of n = 50 rows vs (1 - 1/n)**n.
    The mean's standard error is sqrt(var / B) / n with the exact variance above;
    the tolerance is 5.3 standard errors: two-sided false failure ~1.2e-7 (the CLT
    is accurate here: 4000 nearly normal terms)."""
    n, B = 50, 4000
    rs = Bootstrap(n_resamples=B, random_state=11).fit(np.zeros(n))
    w = np.empty((B, n))
    rs.plan_.fill_weights_chunk(0, w)
    oob = (w == 0).sum(axis=1)
    mean, var = _oob_count_moments(n)
    se = math.sqrt(var / B)
    assert abs(oob.mean() - mean) < 5.3 * se
    assert abs(oob.mean() / n - (1 - 1 / n) ** n) < 5.3 * se / n
    # split agrees with the weights path on a few replicates
    for b, (_, test) in zip(range(5), rs.split(np.zeros(n)), strict=False):
        assert len(test) == oob[b]


def test_bootstrap_indices_are_uniform_over_rows() -> None:
    """Each row's total count over B replicates of n draws is Binomial(B n, 1/n):
    chi-square of the row totals against uniform, false failure 1e-6."""
    n, B = 40, 2000
    rs = Bootstrap(n_resamples=B, random_state=12).fit(np.zeros(n))
    w = np.empty((B, n))
    rs.plan_.fill_weights_chunk(0, w)
    assert (w.sum(axis=1) == n).all()
    assert stats.chisquare(w.sum(axis=0)).pvalue > 1e-6


@pytest.mark.parametrize("m", [1, 7, 30, 60])
def test_m_out_of_n_is_a_prefix_of_the_full_replicate(m) -> None:
    """Draw i of replicate b sits at position i of the stream, so an m-out-of-n
    replicate is the first m draws of the n-out-of-n one."""
    full = Bootstrap(n_resamples=5, random_state=21).fit(X60)
    sub = Bootstrap(n_resamples=5, sample_size=m, random_state=21).fit(X60)
    for b in range(5):
        assert len(sub.replicate(b).indices) == m
        assert_array_equal(sub.replicate(b).indices, full.replicate(b).indices[:m])
        assert sub.replicate(b).counts.sum() == m


def test_stratified_keeps_class_counts_and_draws_within_class() -> None:
    gen = np.random.default_rng(3)
    y = gen.permutation(np.array(["a"] * 30 + ["b"] * 9 + ["c"] * 1 + ["d"] * 20))
    X = np.zeros((60, 1))
    rs = StratifiedBootstrap(n_resamples=200, random_state=5).fit(X, y)
    seen = np.zeros(60, np.int64)
    _, class_counts = np.unique(y, return_counts=True)
    for train, test in rs.split(X, y):
        # slot i draws from y[i]'s class: aligned with the row order
        assert_array_equal(y[train], y)
        assert_array_equal(np.unique(y[train], return_counts=True)[1], class_counts)
        # the single row of class "c" is always in-bag
        assert (y[test] != "c").all()
        seen += np.bincount(train, minlength=60)
    # every row of every class gets drawn over 200 replicates
    assert (seen > 0).all()


def test_stratified_draws_uniformly_within_class() -> None:
    """Within class "a" (30 rows), the total counts over 2000 replicates are
    uniform: chi-square, false failure 1e-6."""
    y = np.repeat([0, 1], [30, 10])
    rs = StratifiedBootstrap(n_resamples=2000, random_state=6).fit(np.zeros(40), y)
    w = np.empty((2000, 40))
    rs.plan_.fill_weights_chunk(0, w)
    assert (w[:, :30].sum(axis=1) == 30).all()
    assert stats.chisquare(w[:, :30].sum(axis=0)).pvalue > 1e-6
    assert stats.chisquare(w[:, 30:].sum(axis=0)).pvalue > 1e-6


def test_group_bootstrap_takes_whole_groups(labelled_data) -> None:
    X, _, groups = labelled_data
    labels, codes, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    rs = GroupBootstrap(n_resamples=50, random_state=7).fit(X, groups=groups)
    for b, (train, test) in enumerate(rs.split(X, groups=groups)):
        counts = np.bincount(train, minlength=len(X))
        # multiplicity is constant within a group: whole groups are drawn
        k = np.zeros(len(labels), np.int64)
        for g in range(len(labels)):
            rows = np.flatnonzero(codes == g)
            assert len(set(counts[rows])) == 1
            k[g] = counts[rows[0]]
        assert k.sum() == len(labels)  # as many draws as groups
        assert len(train) == (k * sizes).sum()
        # OOB = exactly the rows of the undrawn groups
        assert_array_equal(test, np.flatnonzero(k[codes] == 0))
        # in draw order, each drawn group's rows form a contiguous block
        g_seq = codes[train]
        runs = g_seq[np.r_[True, g_seq[1:] != g_seq[:-1]]]
        block_lengths = np.diff(
            np.r_[np.flatnonzero(np.r_[True, g_seq[1:] != g_seq[:-1]]), len(g_seq)]
        )
        assert (block_lengths % sizes[runs] == 0).all()
        assert_array_equal(rs.replicate(b).counts, counts)


def test_group_draw_frequencies_are_uniform() -> None:
    """Over 3000 replicates of 5 groups, the group multiplicities sum to 5 and the
    total draws per group are uniform: chi-square, false failure 1e-6."""
    groups = np.repeat(np.arange(5), [1, 2, 3, 4, 10])
    rs = GroupBootstrap(n_resamples=3000, random_state=8).fit(groups, groups=groups)
    w = np.empty((3000, len(groups)))
    rs.plan_.fill_weights_chunk(0, w)
    first_rows = np.r_[0, np.cumsum([1, 2, 3, 4])]
    k = w[:, first_rows]
    assert (k.sum(axis=1) == 5).all()
    assert stats.chisquare(k.sum(axis=0)).pvalue > 1e-6


def test_poisson_counts_mean_and_variance() -> None:
    """Counts of B = 200 replicates of n = 1000 rows: N = 2e5 iid Poisson(1).
    The mean's SE is 1/sqrt(N) = 0.00224 and the sample variance's SE is
    sqrt((mu4 - 1) / N) = sqrt(3 / N) = 0.00387 (mu4 = 4 for Poisson(1)); the
    tolerances are 5.3 SEs each, two-sided false failure ~1.2e-7 each."""
    n, B = 1000, 200
    rs = PoissonBootstrap(n_resamples=B, random_state=9).fit(np.zeros(n))
    w = np.empty((B, n))
    rs.plan_.fill_weights_chunk(0, w)
    N = w.size
    assert abs(w.mean() - 1) < 5.3 / math.sqrt(N)
    assert abs(w.var(ddof=1) - 1) < 5.3 * math.sqrt(3 / N)
    assert (w == np.round(w)).all() and (w >= 0).all()
    # replicate sizes vary around n: total ~ Poisson(n)
    for b in range(3):
        rep = rs.replicate(b)
        assert len(rep.indices) == rep.counts.sum() == w[b].sum()
        assert_array_equal(rep.indices, np.repeat(np.arange(n), rep.counts))


def test_bayesian_bootstrap_weights() -> None:
    """Weights are positive, sum to n, and each w_i / n is Beta(1, n - 1) (the
    margin of a flat Dirichlet): Kolmogorov-Smirnov on the first and the last
    coordinate over 4000 replicates, false failure 1e-6 each."""
    n, B = 20, 4000
    rs = BayesianBootstrap(n_resamples=B, random_state=10).fit(np.zeros(n))
    w = np.empty((B, n))
    rs.plan_.fill_weights_chunk(0, w)
    assert (w > 0).all()
    np.testing.assert_allclose(w.sum(axis=1), n, rtol=1e-12)
    assert stats.kstest(w[:, 0] / n, stats.beta(1, n - 1).cdf).pvalue > 1e-6
    assert stats.kstest(w[:, -1] / n, stats.beta(1, n - 1).cdf).pvalue > 1e-6
    rep = rs.replicate(0)
    assert_array_equal(rep.weights, w[0])
    assert rep.weights.dtype == np.float64


# ---------------------------------------------------------------------------
# scikit-learn integration
# ---------------------------------------------------------------------------
SK_RESAMPLERS = [
    (Bootstrap, {}),
    (Bootstrap, {"sample_size": 0.8}),
    (StratifiedBootstrap, {}),
    (GroupBootstrap, {}),
    (PoissonBootstrap, {}),
    (MovingBlockBootstrap, {"block_length": 5}),
    (StationaryBootstrap, {"block_length": 4.5}),
]
sk_resamplers = pytest.mark.parametrize(
    "spec", SK_RESAMPLERS, ids=[_id(s) for s in SK_RESAMPLERS]
)


def _assert_whole_groups(groups, train, test) -> None:
    """The test fold is exactly the rows of the groups absent from train."""
    assert len(test) > 0
    assert np.intersect1d(groups[train], groups[test]).size == 0
    assert_array_equal(test, np.flatnonzero(~np.isin(groups, groups[train])))


def _manual_scores(est, rs, X, y, groups):
    scores = []
    for train, test in rs.split(X, y, groups):
        fitted = clone(est).fit(X[train], y[train])
        scores.append(fitted.score(X[test], y[test]))
    return np.array(scores)


@sk_resamplers
def test_cross_validate(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=3, random_state=0)
    res = cross_validate(
        RidgeClassifier(), X, y, cv=rs, groups=groups, return_indices=True
    )
    assert len(res["test_score"]) == 3
    for (train, test), tr, te in zip(
        rs.split(X, y, groups),
        res["indices"]["train"],
        res["indices"]["test"],
        strict=True,
    ):
        assert_array_equal(tr, train)
        assert_array_equal(te, test)
        assert len(te) > 0
        if spec[0] is GroupBootstrap:
            _assert_whole_groups(groups, tr, te)
    np.testing.assert_allclose(
        res["test_score"], _manual_scores(RidgeClassifier(), rs, X, y, groups)
    )


@sk_resamplers
@pytest.mark.parametrize("search", ["grid", "randomized"])
def test_search_cv(spec, search, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=3, random_state=0)
    grid = {"alpha": [0.1, 10.0]}
    if search == "grid":
        cv = GridSearchCV(RidgeClassifier(), grid, cv=rs)
    else:
        cv = RandomizedSearchCV(
            RidgeClassifier(), grid, n_iter=2, cv=rs, random_state=0
        )
    cv.fit(X, y, groups=groups)
    assert cv.n_splits_ == 3
    for i, params in enumerate(cv.cv_results_["params"]):
        got = [cv.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
        expected = _manual_scores(RidgeClassifier(**params), rs, X, y, groups)
        np.testing.assert_allclose(got, expected)


@sk_resamplers
def test_learning_curve(spec, labelled_data) -> None:
    X, y, groups = labelled_data
    rs = make(spec, n_resamples=3, random_state=0)
    sizes, train_scores, test_scores = learning_curve(
        DummyClassifier(), X, y, cv=rs, groups=groups, train_sizes=[0.5, 1.0]
    )
    first_train = next(rs.split(X, y, groups))[0]
    assert sizes[-1] == len(first_train)
    assert train_scores.shape == test_scores.shape == (2, 3)
    assert np.isfinite(test_scores).all()


def test_group_bootstrap_without_groups_fails_in_sklearn(labelled_data) -> None:
    X, y, _ = labelled_data
    with pytest.raises(
        ValueError, match="'groups' parameter of GroupBootstrap is required"
    ):
        cross_validate(RidgeClassifier(), X, y, cv=GroupBootstrap(n_resamples=3))


def test_group_bootstrap_requests_groups_for_split() -> None:
    routing = GroupBootstrap().get_metadata_routing()
    assert routing.split.requests == {"groups": True}
    assert routing.consumes("split", ["groups"]) == {"groups"}
    for cls in CLASSES:
        if cls not in (GroupBootstrap, Permutation):  # both use groups
            routing = make(_first_spec(cls)).get_metadata_routing()
            assert routing.consumes("split", ["groups"]) == set(), cls


@pytest.mark.usefixtures("metadata_routing")
def test_group_bootstrap_with_metadata_routing(labelled_data) -> None:
    """With metadata routing on, groups reach the splitter through params= (and
    as a fit parameter of the searches), and the splits follow them."""
    X, y, groups = labelled_data
    rs = GroupBootstrap(n_resamples=3, random_state=0)
    expected = list(rs.split(X, y, groups))

    res = cross_validate(
        RidgeClassifier(),
        X,
        y,
        cv=rs,
        params={"groups": groups},
        return_indices=True,
    )
    for (train, test), tr, te in zip(
        expected, res["indices"]["train"], res["indices"]["test"], strict=True
    ):
        assert_array_equal(tr, train)
        assert_array_equal(te, test)
        _assert_whole_groups(groups, tr, te)

    for search in (
        GridSearchCV(RidgeClassifier(), {"alpha": [0.1, 10.0]}, cv=rs),
        RandomizedSearchCV(
            RidgeClassifier(), {"alpha": [0.1, 10.0]}, n_iter=2, cv=rs, random_state=0
        ),
    ):
        search.fit(X, y, groups=groups)
        for i, params in enumerate(search.cv_results_["params"]):
            got = [search.cv_results_[f"split{s}_test_score"][i] for s in range(3)]
            want = _manual_scores(RidgeClassifier(**params), rs, X, y, groups)
            np.testing.assert_allclose(got, want)

    sizes, _, test_scores = learning_curve(
        DummyClassifier(),
        X,
        y,
        cv=rs,
        params={"groups": groups},
        train_sizes=[0.5, 1.0],
    )
    assert sizes[-1] == len(expected[0][0])
    assert np.isfinite(test_scores).all()

    # without groups the splitter still refuses, at the call
    with pytest.raises(ValueError, match="'groups' parameter of GroupBootstrap"):
        cross_validate(RidgeClassifier(), X, y, cv=rs)


def test_metadata_routing_fixture_restores_config() -> None:
    import sklearn

    assert sklearn.get_config()["enable_metadata_routing"] is False

"""The ``skboot`` command: ``skboot demo``, ``skboot ci FILE.csv --column x`` and
``skboot test`` (a permutation test, from :mod:`skboot.significance`).

Installed as the ``skboot`` console script and run by ``python -m skboot``; both
call :func:`main`. Modules: ``_parser`` (argument types, the parser),
``_ci`` (the ``ci`` command: option combinations, the run, its JSON and text
output), ``_io`` (the CSV columns read, the plot file written), ``_demo``,
``_options`` (the choices and :class:`CliError`), ``_main`` (:func:`main`).
"""

from __future__ import annotations

from skboot.cli._main import main

__all__ = ["main"]

"""``python -m skboot``: the ``skboot`` command (:mod:`skboot.cli`)."""

from __future__ import annotations

from skboot.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m benchmarks``: see :mod:`benchmarks._cli`."""

from benchmarks._cli import main

if __name__ == "__main__":
    raise SystemExit(main())

"""Command-line arguments sphinx-gallery gives each example (its ``reset_argv``).

A script that offers ``--plot PATH`` gets one, in the temporary folder: the figure
it draws stays open after saving, so sphinx-gallery's matplotlib scraper puts it on
the example's page.  The example's size is set by ``SKBOOT_EXAMPLE_FAST`` (see
``conf.py``), which every script reads.  Named as a string in ``conf.py`` (not
passed as a function) so that Sphinx can cache the configuration.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any


def example_argv(
    gallery_conf: dict[str, Any], script_vars: dict[str, Any]
) -> list[str]:
    """``sys.argv[1:]`` for the example ``script_vars["src_file"]``."""
    script = Path(script_vars["src_file"])
    if "--plot" not in script.read_text(encoding="utf-8"):
        return []
    target = Path(tempfile.gettempdir()) / f"skboot-gallery-{script.stem}.png"
    return ["--plot", str(target)]

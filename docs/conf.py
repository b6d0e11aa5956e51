"""Sphinx configuration for the skboot documentation (built with -W in CI)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import skboot

# _gallery_argv.py, named in sphinx_gallery_conf below
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The gallery runs every example while the documentation builds; at full size they
# take minutes, so the build uses the reduced sizes of their --fast option unless
# SKBOOT_EXAMPLE_FAST is set already (SKBOOT_EXAMPLE_FAST=0 builds at full size).
os.environ.setdefault("SKBOOT_EXAMPLE_FAST", "1")

project = "skboot"
author = "skboot developers"
copyright = "2026, skboot developers"
release = skboot.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinx_design",
    "matplotlib.sphinxext.plot_directive",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
autosummary_generate = True
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    # scikit-learn generates these on every estimator; their docstrings point into
    # scikit-learn's own glossary.
    "exclude-members": "set_split_request, set_fit_request, set_score_request, "
    "get_metadata_routing, set_params, get_params",
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
myst_heading_anchors = 3
html_theme = "pydata_sphinx_theme"
html_title = f"skboot {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
}
# the landing page has no sidebar; every other page lists its section's pages
html_sidebars = {"index": []}
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
# examples/ as a sphinx-gallery (scikit-learn's convention): every script runs at
# build time and its page shows the code, the printed output and the figure.
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # run every example, not only plot_*.py
    "within_subsection_order": "FileNameSortKey",
    "reset_argv": "_gallery_argv.example_argv",
    "abort_on_example_error": True,
    "remove_config_comments": True,
    "show_memory": False,
}
intersphinx_mapping = {}
suppress_warnings = ["myst.xref_missing"]
nitpicky = False

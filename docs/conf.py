"""Sphinx configuration for the skboot documentation (built with -W in CI)."""

from __future__ import annotations

import skboot

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
    "header_links_before_dropdown": 6,
}
intersphinx_mapping = {}
suppress_warnings = ["myst.xref_missing"]
nitpicky = False

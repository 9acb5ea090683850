"""Sphinx configuration of the volsched documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``. The tutorials are
MyST notebooks executed at every build (myst-nb), so an example that no longer runs fails it.
"""

import datetime
import os
from importlib.metadata import version as _version
from pathlib import Path

project = "volsched"
author = "the volsched authors"
copyright = f"{datetime.date.today().year}, {author}"
release = _version("volsched")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "myst_nb",
    "sphinxarg.ext",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}

# -- API reference: autodoc + numpydoc
add_module_names = False
# Options such as --out must not become en dashes.
smartquotes = False
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = False

# -- MyST and myst-nb: every notebook runs at every build; a cell that raises fails the build
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 600
nb_execution_in_temp = True
nb_execution_show_tb = True
# stderr carries progress lines (numba's first compilation, tqdm), not results.
nb_output_stderr = "remove"
nb_merge_streams = True
# A %%bash cell fails only when its last command does; every command of it must succeed.
os.environ["BASH_ENV"] = str(Path(__file__).with_name("strict-bash.sh").resolve())

# -- HTML
html_theme = "alabaster"
html_title = f"volsched {release}"
html_theme_options = {
    "description": "Exact off-line optima and scored on-line heuristics for volatile resources",
    "fixed_sidebar": True,
    "page_width": "1100px",
    "sidebar_width": "230px",
}

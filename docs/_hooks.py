"""MkDocs hook: the figure gallery of the docs shows the committed PNGs of ``figures/``.

The pages link to them as files of the repository (``../../figures/ID.png`` from
``docs/tutorials/``), which is right when the Markdown is read in the repository. MkDocs only
publishes ``docs/``: this hook adds the linked PNGs to the site under ``figures/`` and rewrites
those links to point there. Any other link that leaves ``docs/`` is left alone (and fails
``mkdocs build --strict``).

The docstrings of the package use Sphinx roles (``:class:`RdpAccountant```, ``:math:`...```);
rendered by mkdocstrings they would show the role's name: the role is dropped and the name
shortened (``~pkg.mod.name`` -> ``name``), leaving the code span.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
_LINK = re.compile(r"(\]\()([^)\s]+\.png)(\))")
_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj|math|ref|py:\w+):(<code>)(~?)([^<]*)(</code>)")


def on_files(files, config):
    for png in sorted((ROOT / "figures").glob("*.png")):
        files.append(File(f"figures/{png.name}", str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown, page, config, files):
    here = posixpath.dirname(page.file.src_uri)

    def fix(m):
        target = posixpath.normpath(posixpath.join(here, m.group(2)))
        if target.startswith("../figures/"):
            return m.group(1) + posixpath.relpath(target[3:], here or ".") + m.group(3)
        return m.group(0)

    return _LINK.sub(fix, markdown)


def on_page_content(html, page, config, files):
    def fix(m):
        name = m.group(3)
        if m.group(2):  # ~a.b.c shows as c
            name = name.rsplit(".", 1)[-1]
        return m.group(1) + name.lstrip(".") + m.group(4)

    return _ROLE.sub(fix, html)

"""For course authors: write a solution notebook from Python, then run it to store its outputs.

    from course.authoring.cells import md, code, write, execute
    cells = [md("# 03 — A queue in Postgres"), code("import course", tags=["setup"]),
             code("def claim(conn):\n    # BEGIN SOLUTION\n    ...\n    # END SOLUTION", exercise="03.claim")]
    write("solutions/03_postgres_queue.ipynb", cells)
    execute("solutions/03_postgres_queue.ipynb")      # runs it in a fresh kernel, stores the outputs

Cell ids are derived from the notebook and the cell's position, so rewriting a notebook gives the same
ids (and a readable diff) as long as the cells stay in place.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def md(text: str, **metadata):
    return new_markdown_cell(text.strip("\n"), metadata=metadata)


def code(source: str, *, tags: list[str] | None = None, exercise: str | None = None):
    metadata = {}
    if tags:
        metadata["tags"] = list(tags)
    if exercise:
        metadata["course"] = {"exercise": exercise}
    return new_code_cell(source.strip("\n"), metadata=metadata)


def write(path: str | Path, cells: list) -> Path:
    path = Path(path)
    notebook = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"},
        "language_info": {"name": "python"},
    })
    for index, cell in enumerate(notebook.cells):
        cell.id = hashlib.sha1(f"{path.stem}:{index}".encode()).hexdigest()[:8]
    nbformat.write(notebook, path)
    return path


def execute(path: str | Path, timeout: int = 300) -> None:
    """Run the notebook top to bottom in a fresh kernel, from its own folder, and store the outputs."""
    from nbclient import NotebookClient

    path = Path(path).resolve()
    notebook = nbformat.read(path, as_version=4)
    os.environ.setdefault("COURSE_PROGRESS_FILE", str(Path("/tmp") / f"authoring-progress-{os.getpid()}.json"))
    NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(notebook, path)

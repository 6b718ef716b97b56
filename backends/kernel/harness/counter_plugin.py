"""bitfold's instruction counter, `counter_plugin.c` (a QEMU TCG plugin), built on first use.

`plugin_path()` returns the shared object, building it the first time into the cache:

    ${XDG_CACHE_HOME:-~/.cache}/bitfold/qemu-<version>/qemu-plugin.h      qemu's plugin API header
    ${XDG_CACHE_HOME:-~/.cache}/bitfold/counter-plugin/<digest>.so        the plugin

    gcc -O2 -shared -fPIC -I<header dir> $(pkg-config --cflags glib-2.0) counter_plugin.c -o <digest>.so

No Debian binary package ships `qemu-plugin.h` (qemu is GPL; the repository holds none of it): it is
taken from Debian's qemu source package, the version of the installed qemu-user first
(`apt-get source --download-only qemu=VERSION`, which needs deb-src entries: scripts/setup.sh adds
them), its upstream tarball read for that one file and then deleted. The plugin is named by a digest
of its source and the header, so an edited source builds anew. Concurrent first uses wait on a lock.
`python -m bitfold.backends.kernel.harness` (the package's `__main__`) builds it and prints its path.
"""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from bitfold.backends.kernel.harness.toolchain import HarnessError, run_tool

SOURCE = Path(__file__).with_name("counter_plugin.c")
HEADER_NAME = "qemu-plugin.h"
HEADER_IN_TARBALL = f"include/qemu/{HEADER_NAME}"
QEMU_BINARY_PACKAGE = "qemu-user"
QEMU_SOURCE_PACKAGE = "qemu"
DOWNLOAD_TIMEOUT_SECONDS = 900  # the qemu source tarball is some 100 MB
SETUP_HINT = "scripts/setup.sh, run as root, adds deb-src entries to the apt sources"


def cache_directory() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "bitfold"


def installed_qemu_source_version() -> str | None:
    """The version of the qemu source package the installed qemu-user was built from, if dpkg knows it."""
    if shutil.which("dpkg-query") is None:
        return None
    done = subprocess.run(["dpkg-query", "-W", "-f=${source:Version}", QEMU_BINARY_PACKAGE],
                          capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    return done.stdout.strip()


def download_qemu_source(version: str | None, directory: Path) -> Path:
    """Download Debian's qemu source package into `directory`; return its upstream tarball."""
    attempts = [f"{QEMU_SOURCE_PACKAGE}={version}"] if version else []
    attempts.append(QEMU_SOURCE_PACKAGE)
    failure = None
    for package in attempts:
        try:
            run_tool("downloading Debian's qemu source package for the instruction counter",
                     ["apt-get", "source", "--download-only", package], DOWNLOAD_TIMEOUT_SECONDS, cwd=directory)
        except HarnessError as error:
            failure = error
            continue
        tarballs = sorted(directory.glob(f"{QEMU_SOURCE_PACKAGE}_*.orig.tar.*"))
        if tarballs:
            return tarballs[0]
        failure = HarnessError(f"apt-get source {package} gave no upstream tarball")
    assert failure is not None
    raise HarnessError(f"{failure}\n({SETUP_HINT})")


def extract_header(tarball: Path, destination: Path) -> None:
    with tarfile.open(tarball) as archive:
        for member in archive:
            if member.isfile() and member.name.endswith(f"/{HEADER_IN_TARBALL}"):
                source = archive.extractfile(member)
                assert source is not None
                destination.write_bytes(source.read())
                return
    raise HarnessError(f"{tarball.name} has no {HEADER_IN_TARBALL}, which the instruction counter needs")


def qemu_plugin_header(cache: Path) -> Path:
    """qemu-plugin.h of the installed qemu's source version, downloaded into the cache once."""
    version = installed_qemu_source_version()
    upstream = version.split(":")[-1].rsplit("-", 1)[0] if version else "any"
    header = cache / f"qemu-{upstream}" / HEADER_NAME
    if header.is_file():
        return header
    header.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        # apt-get drops root to _apt for the download: let it write here.
        os.chmod(scratch, 0o777)
        tarball = download_qemu_source(version, Path(scratch))
        partial = header.with_suffix(".partial")
        extract_header(tarball, partial)
        partial.replace(header)
    return header


def glib_flags() -> list[str]:
    return run_tool("locating glib's headers (libglib2.0-dev)", ["pkg-config", "--cflags", "glib-2.0"]).stdout.split()


def build(cache: Path) -> Path:
    header = qemu_plugin_header(cache)
    digest = hashlib.sha256(SOURCE.read_bytes() + header.read_bytes()).hexdigest()[:16]
    plugin = cache / "counter-plugin" / f"{digest}.so"
    if plugin.is_file():
        return plugin
    plugin.parent.mkdir(parents=True, exist_ok=True)
    partial = plugin.with_suffix(".partial.so")
    run_tool("compiling the instruction counter", ["gcc", "-O2", "-shared", "-fPIC", "-Wall", f"-I{header.parent}",
                                                   *glib_flags(), SOURCE, "-o", partial])
    partial.replace(plugin)
    return plugin


def plugin_path() -> Path:
    """The instruction counter plugin, built on first use (module docstring). Raises HarnessError
    naming the missing tool or the failing step."""
    cache = cache_directory()
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / "counter-plugin.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return build(cache)


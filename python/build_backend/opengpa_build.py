# SPDX-License-Identifier: MIT
"""The package's own PEP 517 build backend: the standard library only.

Why not setuptools: `pip install ./python` builds in an isolated
environment into which it downloads the backend named by pyproject.toml;
offline (build machines, device farms, this project's CI) that fails, and
Debian 12's setuptools 66 cannot build a wheel without the separate `wheel`
package.  The package is pure Python, so a wheel is a zip of its files and
three metadata files (PEP 427, PEP 376's RECORD): this module writes it, and
pip needs nothing else, with or without --no-build-isolation.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "opengpa"


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    fields = dict(re.findall(r'^([a-z-]+) = "([^"]*)"', section, re.M))
    return fields["name"], fields["version"], fields


def _metadata():
    name, version, f = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version,
             "Summary: " + f.get("description", ""), "License: MIT",
             "Requires-Python: " + f.get("requires-python", ">=3.9"),
             "Provides-Extra: numpy", "Requires-Dist: numpy; extra == \"numpy\"",
             "Classifier: Typing :: Typed"]
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as fh:
            body = fh.read()
    return "\n".join(lines) + "\n\n" + body


def _package_files():
    top = os.path.join(ROOT, PACKAGE)
    for name in sorted(os.listdir(top)):
        if name.endswith(".py") or name == "py.typed":
            yield os.path.join(PACKAGE, name)


def _dist_info():
    name, version, _ = _project()
    return "%s-%s.dist-info" % (name, version), name, version


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info, _, _ = _dist_info()
    path = os.path.join(metadata_directory, dist_info)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist_info, name, version = _dist_info()
    wheel_name = "%s-%s-py3-none-any.whl" % (name, version)
    entries = []
    for rel in _package_files():
        with open(os.path.join(ROOT, rel), "rb") as f:
            entries.append((rel, f.read()))
    entries.append((dist_info + "/METADATA", _metadata().encode("utf-8")))
    entries.append((dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: opengpa_build\n"
                    b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = []
    for rel, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.append("%s,sha256=%s,%d" % (rel, digest.decode(), len(data)))
    record.append(dist_info + "/RECORD,,")
    entries.append((dist_info + "/RECORD", ("\n".join(record) + "\n").encode()))
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for rel, data in entries:
            info = zipfile.ZipInfo(rel, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    _, name, version = _dist_info()
    base = "%s-%s" % (name, version)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    files = ["pyproject.toml", "README.md", "build_backend/opengpa_build.py"]
    files += list(_package_files())
    tests = os.path.join(ROOT, "tests")
    files += [os.path.join("tests", n) for n in sorted(os.listdir(tests)) if n.endswith(".py")]
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            tar.add(os.path.join(ROOT, rel), arcname=base + "/" + rel)
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = _metadata().encode("utf-8")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return base + ".tar.gz"

# SPDX-License-Identifier: MIT
"""The package's own PEP 517 build backend: the standard library only.

Why not setuptools: `pip install ./python` builds in an isolated
environment into which it downloads the backend named by pyproject.toml;
offline (build machines, device farms, this project's CI) that fails, and
Debian 12's setuptools 66 cannot build a wheel without the separate `wheel`
package.  The package is pure Python, so a wheel is a zip of its files and
three metadata files (PEP 427, PEP 376's RECORD): this module writes it, and
pip needs nothing else, with or without --no-build-isolation.  Entry points
(pyproject.toml's [project.entry-points.GROUP] tables: the pytest plugin's
`pytest11`) go into the dist-info's entry_points.txt, where importlib.metadata
and so pytest find them.

`python3 opengpa_build.py --dist-info DIR` writes the dist-info directory
alone (METADATA and entry_points.txt) into DIR: the Debian package installs
python/opengpa-VERSION.dist-info, made so, beside the package's files.
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


def _entry_points():
    """entry_points.txt's text (the INI form of the PyPA entry-points
    specification) from pyproject.toml's [project.entry-points.GROUP] tables,
    or None when there are none."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    groups = []
    for group, body in re.findall(r'^\[project\.entry-points\.([A-Za-z0-9_.-]+)\]\n'
                                  r'((?:(?!\[).*\n?)*)', text, re.M):
        pairs = re.findall(r'^([A-Za-z0-9_.-]+)\s*=\s*"([^"]+)"', body, re.M)
        if pairs:
            groups.append("[%s]\n" % group + "".join("%s = %s\n" % p for p in pairs))
    return "\n".join(groups) if groups else None


def _dist_info_files(body=True):
    """The dist-info's metadata files, {name: bytes} (RECORD and WHEEL apart);
    body=False leaves the README out of METADATA."""
    files = {"METADATA": _metadata(body).encode("utf-8")}
    eps = _entry_points()
    if eps is not None:
        files["entry_points.txt"] = eps.encode("utf-8")
    return files


def _metadata(with_body=True):
    name, version, f = _project()
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version,
             "Summary: " + f.get("description", ""), "License: MIT",
             "Requires-Python: " + f.get("requires-python", ">=3.9"),
             "Provides-Extra: numpy", "Requires-Dist: numpy; extra == \"numpy\"",
             "Classifier: Typing :: Typed"]
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if with_body and os.path.exists(readme):
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


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None, body=True):
    dist_info, _, _ = _dist_info()
    path = os.path.join(metadata_directory, dist_info)
    os.makedirs(path, exist_ok=True)
    for name, data in _dist_info_files(body).items():
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist_info, name, version = _dist_info()
    wheel_name = "%s-%s-py3-none-any.whl" % (name, version)
    entries = []
    for rel in _package_files():
        with open(os.path.join(ROOT, rel), "rb") as f:
            entries.append((rel, f.read()))
    for name, data in _dist_info_files().items():
        entries.append((dist_info + "/" + name, data))
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


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "--dist-info":
        sys.exit("usage: opengpa_build.py --dist-info DIR  (writes DIR/NAME-VERSION.dist-info)")
    # Without the README: importlib.metadata needs the name, the version
    # and the entry points, and the file stays the same when the README changes.
    print(prepare_metadata_for_build_wheel(sys.argv[2], body=False))

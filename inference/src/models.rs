//! Where models live and how they get there.
//!
//! Two places hold models, in the same layout (`default/` the pair's
//! manifest, `smollm2-debugger/`, `base/`, `qwen2.5-coder-1.5b/` and `-q8/`):
//!
//! - the user's data directory, `$NDB_DATA_DIR/models`, else
//!   `$XDG_DATA_HOME/ndb/models`, else `~/.local/share/ndb/models`
//!   (`%LOCALAPPDATA%\ndb\models` on Windows): what `ndb models install`
//!   fills, found by an `ndb` installed anywhere;
//! - the source checkout's `inference/models/`, what `bash .ci/setup` fills:
//!   read only by a binary that runs from inside that checkout (`cargo run`,
//!   the tests), so a development build uses the models it was built beside
//!   and an installed copy never depends on a checkout that may move.
//!
//! `ndb models install` runs the set-up's own Python script
//! (`inference/scripts/install_models.py` and the two it runs), compiled into
//! the binary, so it needs Python 3 with numpy, gguf and tokenizers and no
//! checkout; the adapter comes from the checkout the binary was built from or
//! from `--adapter`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::neural::{ModelError, PAIR_MANIFEST};

/// The checkout's models folder, compiled in.
const CHECKOUT_MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/models");
/// The committed adapter and the pair's manifest, compiled in as a path.
const CHECKOUT_ADAPTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/default-model");

/// The install script and what it imports, at their checkout paths (the
/// scripts find each other and `grammar/src/text/mod.rs`, the special
/// tokens, by those relative paths).
const INSTALL_BUNDLE: &[(&str, &str)] = &[
    (
        "inference/scripts/install_models.py",
        include_str!("../scripts/install_models.py"),
    ),
    (
        "inference/scripts/fetch_default_model.py",
        include_str!("../scripts/fetch_default_model.py"),
    ),
    (
        "inference/scripts/build_default_model.py",
        include_str!("../scripts/build_default_model.py"),
    ),
    (
        "inference/scripts/requantize_gguf.py",
        include_str!("../scripts/requantize_gguf.py"),
    ),
    (
        "inference/training/smollm2.py",
        include_str!("../training/smollm2.py"),
    ),
    (
        "inference/training/hf_files.py",
        include_str!("../training/hf_files.py"),
    ),
    (
        "grammar/src/text/mod.rs",
        include_str!("../../grammar/src/text/mod.rs"),
    ),
];

/// The folders models are looked up in, read from the environment once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locations {
    /// `$NDB_MODEL`: one model, ahead of everything.
    pub explicit: Option<PathBuf>,
    /// The user's models folder (created by `ndb models install`).
    pub data: Option<PathBuf>,
    /// The checkout's `inference/models/`, when this binary runs from that
    /// checkout.
    pub checkout: Option<PathBuf>,
}

impl Locations {
    /// The locations this process sees.
    pub fn from_env() -> Locations {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        let data = data_dir(
            var("NDB_DATA_DIR"),
            var("XDG_DATA_HOME"),
            var("HOME"),
            var("LOCALAPPDATA"),
        );
        let checkout = std::env::current_exe()
            .ok()
            .filter(|exe| runs_from_checkout(exe))
            .map(|_| PathBuf::from(CHECKOUT_MODELS));
        Locations {
            explicit: var("NDB_MODEL"),
            data: data.map(|dir| dir.join("models")),
            checkout,
        }
    }

    /// The model folders in the order the default is looked for: the
    /// explicit one, each place's pair, then each place's untrained SmolLM2
    /// base (which answers with the demonstration prompt).
    pub fn default_candidates(&self) -> Vec<PathBuf> {
        let places: Vec<&PathBuf> = self.checkout.iter().chain(self.data.iter()).collect();
        let mut candidates: Vec<PathBuf> = self.explicit.iter().cloned().collect();
        candidates.extend(places.iter().map(|place| place.join("default")));
        candidates.extend(places.iter().map(|place| place.join("base")));
        candidates
    }

    /// The default model's path, if one is installed.
    pub fn default_model(&self) -> Result<PathBuf, ModelError> {
        let candidates = self.default_candidates();
        candidates
            .iter()
            .find(|path| path.exists())
            .cloned()
            .ok_or_else(|| ModelError::NoDefault {
                looked: candidates
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Every place that holds models, the checkout first.
    pub fn places(&self) -> Vec<(&'static str, &Path)> {
        let mut places = Vec::new();
        if let Some(checkout) = &self.checkout {
            places.push(("checkout", checkout.as_path()));
        }
        if let Some(data) = &self.data {
            places.push(("data directory", data.as_path()));
        }
        places
    }
}

/// The default model's path as this process sees it ([`Locations`]).
pub fn default_model_path() -> Result<PathBuf, ModelError> {
    Locations::from_env().default_model()
}

/// The user's data directory for ndb: the override, else the XDG one, else
/// the platform's usual place. A relative `XDG_DATA_HOME` is ignored, as
/// the XDG specification says.
fn data_dir(
    ndb: Option<PathBuf>,
    xdg: Option<PathBuf>,
    home: Option<PathBuf>,
    local_app_data: Option<PathBuf>,
) -> Option<PathBuf> {
    if ndb.is_some() {
        return ndb;
    }
    if let Some(xdg) = xdg.filter(|path| path.is_absolute()) {
        return Some(xdg.join("ndb"));
    }
    if cfg!(windows) {
        return local_app_data.map(|dir| dir.join("ndb"));
    }
    home.map(|home| home.join(".local").join("share").join("ndb"))
}

/// Whether `exe` lies inside the checkout this crate was compiled from.
fn runs_from_checkout(exe: &Path) -> bool {
    let Some(root) = Path::new(env!("CARGO_MANIFEST_DIR")).parent() else {
        return false;
    };
    match (exe.canonicalize(), root.canonicalize()) {
        (Ok(exe), Ok(root)) => exe.starts_with(root),
        _ => false,
    }
}

/// The checkout's committed adapter folder, if this binary's checkout is
/// still there.
pub fn checkout_adapter() -> Option<PathBuf> {
    let adapter = PathBuf::from(CHECKOUT_ADAPTER);
    adapter
        .join("adapter.safetensors")
        .is_file()
        .then_some(adapter)
}

/// The checkout's models folder, if it is there (a source of already
/// fetched files for an install elsewhere).
pub fn checkout_models() -> Option<PathBuf> {
    let models = PathBuf::from(CHECKOUT_MODELS);
    models.is_dir().then_some(models)
}

/// One installed model folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The folder's name (`default`, `smollm2-debugger`, ...).
    pub name: String,
    pub path: PathBuf,
    pub kind: Kind,
    /// What the folder is for.
    pub purpose: String,
    /// Bytes on disk (files counted once, links not followed; a hard link
    /// to another installation's file counts here too).
    pub bytes: u64,
}

/// What an installed folder holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `ndb-models.json`: the two models it names and the forms.
    Pair {
        language: String,
        assertions: String,
        forms: Option<String>,
    },
    /// A Hugging Face directory (`config.json` and safetensors).
    HuggingFace,
    /// A GGUF file.
    Gguf { file: String },
    /// Nothing ndb loads (a partial install, or another folder).
    Other,
}

impl Kind {
    pub fn label(&self) -> &'static str {
        match self {
            Kind::Pair { .. } => "pair",
            Kind::HuggingFace => "hf",
            Kind::Gguf { .. } => "gguf",
            Kind::Other => "other",
        }
    }
}

/// What each folder the install writes is for.
fn purpose_of(name: &str, kind: &Kind) -> String {
    let known = match name {
        "default" => Some("the default model: the pair ndb loads when no --model is given"),
        "smollm2-debugger" => {
            Some("SmolLM2-135M with the debugger adapter merged: answers in the text language")
        }
        "base" => Some("SmolLM2-135M as distributed: what the debugger model is built from and trained on"),
        "qwen2.5-coder-0.5b" => Some("Qwen2.5-Coder-0.5B-Instruct as distributed (Q4_K_M): training"),
        "qwen2.5-coder-0.5b-q8" => {
            Some("Qwen2.5-Coder-0.5B-Instruct in Q8_0: a smaller code model for a pair (--model)")
        }
        "qwen2.5-coder-1.5b" => Some("Qwen2.5-Coder-1.5B-Instruct as distributed (Q4_K_M)"),
        "qwen2.5-coder-1.5b-q8" => Some(
            "Qwen2.5-Coder-1.5B-Instruct in Q8_0: the default's code model, asked the jumps as assertions",
        ),
        _ => None,
    };
    match (known, kind) {
        (Some(purpose), _) => purpose.to_string(),
        (None, Kind::Pair { .. }) => "a pair of models (--model)".to_string(),
        (None, Kind::HuggingFace) => "a Hugging Face model directory (--model)".to_string(),
        (None, Kind::Gguf { .. }) => "a GGUF model (--model)".to_string(),
        (None, Kind::Other) => "not a model ndb loads".to_string(),
    }
}

/// The model folders under `place`, by name.
pub fn list(place: &Path) -> Vec<Installed> {
    let Ok(entries) = std::fs::read_dir(place) else {
        return Vec::new();
    };
    let mut found: Vec<Installed> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .map(|entry| {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = kind_of(&path);
            Installed {
                purpose: purpose_of(&name, &kind),
                bytes: folder_bytes(&path),
                name,
                path,
                kind,
            }
        })
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

fn kind_of(folder: &Path) -> Kind {
    if let Ok(text) = std::fs::read_to_string(folder.join(PAIR_MANIFEST)) {
        let manifest: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let field = |key: &str| {
            manifest
                .get(key)
                .and_then(|value| value.as_str())
                .map(str::to_string)
        };
        return Kind::Pair {
            language: field("language").unwrap_or_default(),
            assertions: field("assertions").unwrap_or_default(),
            forms: field("forms"),
        };
    }
    if folder.join("config.json").is_file() {
        return Kind::HuggingFace;
    }
    let gguf = std::fs::read_dir(folder).ok().and_then(|entries| {
        entries
            .filter_map(Result::ok)
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .find(|name| name.ends_with(".gguf"))
    });
    match gguf {
        Some(file) => Kind::Gguf { file },
        None => Kind::Other,
    }
}

fn folder_bytes(folder: &Path) -> u64 {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|entry| entry.metadata().ok())
                .filter(|meta| meta.is_file())
                .map(|meta| meta.len())
                .sum()
        })
        .unwrap_or(0)
}

/// What `ndb models install` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallOptions {
    /// The models folder to fill.
    pub models: PathBuf,
    /// The debugger adapter folder (`adapter.safetensors`, `adapter.json`,
    /// `ndb-models.json`).
    pub adapter: PathBuf,
    /// A models folder to take identical files from before downloading.
    pub source: Option<PathBuf>,
    /// Bases to install besides the default pair's.
    pub bases: Vec<String>,
    /// The Python that runs the install script.
    pub python: PathBuf,
}

/// Why an install failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "no debugger adapter: this ndb was not built in a checkout that is still there; \
         pass --adapter DIR (a folder with adapter.safetensors, adapter.json and \
         ndb-models.json, such as a checkout's inference/default-model)"
    )]
    NoAdapter,
    #[error("{0} has no adapter.safetensors")]
    NotAnAdapter(PathBuf),
    #[error("could not write the install script to {path}: {source}")]
    Bundle {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not run {python} (Python 3 runs the install): {source}")]
    Python {
        python: PathBuf,
        source: std::io::Error,
    },
    #[error("the install failed ({status}); its messages are above")]
    Failed { status: std::process::ExitStatus },
}

/// The adapter folder an install uses: the one given, else the checkout's.
pub fn adapter_for_install(given: Option<PathBuf>) -> Result<PathBuf, InstallError> {
    match given {
        Some(adapter) if adapter.join("adapter.safetensors").is_file() => Ok(adapter),
        Some(adapter) => Err(InstallError::NotAnAdapter(adapter)),
        None => checkout_adapter().ok_or(InstallError::NoAdapter),
    }
}

/// Installs the bases and builds the default pair into `options.models`,
/// by the set-up's own script (its messages go to stderr).
pub fn install(options: &InstallOptions) -> Result<(), InstallError> {
    let bundle = Bundle::write()?;
    let mut command = Command::new(&options.python);
    command
        .arg("-B")
        .arg(bundle.root.join(INSTALL_BUNDLE[0].0))
        .arg("--models")
        .arg(&options.models)
        .arg("--adapter")
        .arg(&options.adapter);
    if let Some(source) = &options.source {
        command.arg("--source").arg(source);
    }
    for base in &options.bases {
        command.arg("--base").arg(base);
    }
    let status = command
        .stdin(Stdio::null())
        // stdout is the command's result: the script's messages go to stderr.
        .stdout(std::io::stderr())
        .status()
        .map_err(|source| InstallError::Python {
            python: options.python.clone(),
            source,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(InstallError::Failed { status })
    }
}

/// The install scripts written out in their checkout layout, removed when
/// dropped.
struct Bundle {
    root: PathBuf,
}

impl Bundle {
    fn write() -> Result<Bundle, InstallError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or(0);
        let root = std::env::temp_dir().join(format!("ndb-install-{}-{nanos}", std::process::id()));
        let bundle = Bundle { root };
        for (relative, text) in INSTALL_BUNDLE {
            let path = bundle.root.join(relative);
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, text));
            written.map_err(|source| InstallError::Bundle { path, source })?;
        }
        Ok(bundle)
    }
}

impl Drop for Bundle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(text: &str) -> Option<PathBuf> {
        Some(PathBuf::from(text))
    }

    #[test]
    fn the_data_directory_is_the_override_then_xdg_then_home() {
        assert_eq!(
            data_dir(path("/o"), path("/x"), path("/h"), None),
            path("/o")
        );
        assert_eq!(data_dir(None, path("/x"), path("/h"), None), path("/x/ndb"));
        if !cfg!(windows) {
            assert_eq!(
                data_dir(None, None, path("/h"), None),
                path("/h/.local/share/ndb")
            );
            // A relative XDG_DATA_HOME is invalid and ignored.
            assert_eq!(
                data_dir(None, path("rel"), path("/h"), None),
                path("/h/.local/share/ndb")
            );
        }
        assert_eq!(data_dir(None, None, None, None), None);
    }

    #[test]
    fn the_default_is_looked_for_explicit_then_pairs_then_bases() {
        let locations = Locations {
            explicit: path("/m"),
            data: path("/d"),
            checkout: path("/c"),
        };
        let expected: Vec<PathBuf> = ["/m", "/c/default", "/d/default", "/c/base", "/d/base"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(locations.default_candidates(), expected);
        let none = Locations {
            explicit: None,
            data: path("/nonexistent-ndb-data"),
            checkout: None,
        };
        let message = none.default_model().unwrap_err().to_string();
        assert!(message.contains("ndb models install"), "{message}");
        assert!(
            message.contains("/nonexistent-ndb-data/default"),
            "{message}"
        );
    }

    #[test]
    fn the_test_binary_runs_from_its_checkout_and_a_copy_elsewhere_does_not() {
        let exe = std::env::current_exe().unwrap();
        assert!(runs_from_checkout(&exe));
        assert!(!runs_from_checkout(&std::env::temp_dir()));
    }

    #[test]
    fn the_bundle_holds_every_module_the_install_script_imports() {
        let bundle = Bundle::write().unwrap();
        let root = bundle.root.clone();
        let output = Command::new("python3")
            .arg("-B")
            .arg(root.join(INSTALL_BUNDLE[0].0))
            .arg("--help")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        // The special tokens are read from the bundled grammar source.
        let tokens = Command::new("python3")
            .arg("-B")
            .arg("-c")
            .arg("import sys; sys.path.insert(0, sys.argv[1]); import smollm2; print(len(smollm2.special_tokens()))")
            .arg(root.join("inference/training"))
            .output()
            .unwrap();
        let count: usize = String::from_utf8_lossy(&tokens.stdout)
            .trim()
            .parse()
            .unwrap_or(0);
        assert!(count > 10, "{}", String::from_utf8_lossy(&tokens.stderr));
        drop(bundle);
        assert!(!root.exists());
    }
}

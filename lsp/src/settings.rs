//! The user's settings under `neuralDebugger`, read from
//! `initializationOptions` and from `workspace/configuration` (and pushed
//! through `workspace/didChangeConfiguration`). Unknown keys are ignored and
//! a wrong value falls back to its default: a typo never stops the server.

use serde::Deserialize;
use serde_json::Value;

// What answers the questions (`engine`): the model, the tracer (only when
// `allowRunningCode` is on) or both (`auto`), the one choice of every front
// end.
use ndb_inference::debugger::Backend;

/// How an accepted suggestion is written into the code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum InsertStyle {
    #[default]
    Doctest,
    Pytest,
    Comment,
}

impl InsertStyle {
    pub fn as_str(self) -> &'static str {
        match self {
            InsertStyle::Doctest => "doctest",
            InsertStyle::Pytest => "pytest",
            InsertStyle::Comment => "comment",
        }
    }
}

/// How a function's return value is predicted (the one output mode of
/// every front end).
pub use ndb_inference::ops::OutputMode;

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InlayHintSettings {
    /// Predicted locals at neural breakpoints.
    pub breakpoints: bool,
    /// The predicted return value at return lines.
    pub return_values: bool,
    /// Longest label, in characters; the full text is in the tooltip.
    pub max_length: usize,
}

impl Default for InlayHintSettings {
    fn default() -> Self {
        InlayHintSettings {
            breakpoints: true,
            return_values: true,
            max_length: 60,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HoverSettings {
    pub enable: bool,
    /// How long a hover waits for a prediction still running before it
    /// answers "predicting".
    pub wait_ms: u64,
}

impl Default for HoverSettings {
    fn default() -> Self {
        HoverSettings {
            enable: true,
            wait_ms: 2_000,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CodeLensSettings {
    pub enable: bool,
}

impl Default for CodeLensSettings {
    fn default() -> Self {
        CodeLensSettings { enable: true }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SuggestionSettings {
    pub insert_as: InsertStyle,
    /// Ask the model for candidates (off: only the search, which needs
    /// `allowRunningCode`).
    pub use_model: bool,
    /// Most candidate runs of one suggestion (with `allowRunningCode`).
    pub max_runs: usize,
    /// Most seconds of one suggestion, the model's included.
    pub max_seconds: u64,
}

impl Default for SuggestionSettings {
    fn default() -> Self {
        let budget = ndb_inference::suggest::Budget::default();
        SuggestionSettings {
            insert_as: InsertStyle::Doctest,
            use_model: true,
            max_runs: budget.runs,
            max_seconds: budget.time.as_secs(),
        }
    }
}

/// All settings.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub engine: Backend,
    /// Samples per question (k); `None` keeps the model's own setting.
    pub samples: Option<usize>,
    /// Running the user's code (checking, the tracer engine). Off unless the
    /// user turns it on.
    pub allow_running_code: bool,
    /// The interpreter the tracer runs.
    pub python: Option<String>,
    pub inlay_hints: InlayHintSettings,
    pub hover: HoverSettings,
    pub code_lens: CodeLensSettings,
    pub suggestions: SuggestionSettings,
    pub output_mode: OutputMode,
    /// Quiet time after an edit before predictions start.
    pub debounce_ms: u64,
    /// Look for entry calls in the workspace's test files.
    pub scan_test_files: bool,
    /// Model to load instead of the command line's (read at start only).
    pub model_path: Option<String>,
    /// The URL of an `ndb serve` to ask instead of loading a model (read at
    /// start only).
    pub model_server: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            engine: Backend::Model,
            samples: None,
            allow_running_code: false,
            python: None,
            inlay_hints: InlayHintSettings::default(),
            hover: HoverSettings::default(),
            code_lens: CodeLensSettings::default(),
            suggestions: SuggestionSettings::default(),
            output_mode: OutputMode::StepReturn,
            debounce_ms: 150,
            scan_test_files: true,
            model_path: None,
            model_server: None,
        }
    }
}

impl Settings {
    /// Reads settings from a JSON value that is either the `neuralDebugger`
    /// object itself or an object holding it under `neuralDebugger`.
    /// Fields that do not deserialize keep their defaults, one by one.
    pub fn from_json(value: &Value) -> (Settings, Vec<String>) {
        let object = value.get("neuralDebugger").unwrap_or(value);
        let mut problems = Vec::new();
        let Some(map) = object.as_object() else {
            if !object.is_null() {
                problems.push("neuralDebugger settings are not an object".to_string());
            }
            return (Settings::default(), problems);
        };
        // Deserialize field by field so one bad value spoils only itself.
        let mut merged = serde_json::Map::new();
        for (key, value) in map {
            let mut single = serde_json::Map::new();
            single.insert(key.clone(), value.clone());
            match serde_json::from_value::<Settings>(Value::Object(single)) {
                Ok(_) => {
                    merged.insert(key.clone(), value.clone());
                }
                Err(error) => problems.push(format!("neuralDebugger.{key}: {error}")),
            }
        }
        let settings = serde_json::from_value(Value::Object(merged)).unwrap_or_default();
        (settings, problems)
    }

    /// Whether the tracer answers the questions (the user allowed running
    /// code and chose the tracer engine).
    pub fn uses_tracer(&self) -> bool {
        self.engine == Backend::Tracer && self.allow_running_code
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_nested_and_flat_objects_and_keeps_defaults_for_bad_values() {
        let (settings, problems) = Settings::from_json(&json!({
            "neuralDebugger": {
                "allowRunningCode": true,
                "inlayHints": {"maxLength": 20},
                "samples": "many",
                "suggestions": {"insertAs": "pytest"},
                "unknown": 1
            }
        }));
        assert!(settings.allow_running_code);
        assert_eq!(settings.inlay_hints.max_length, 20);
        assert!(settings.inlay_hints.breakpoints);
        assert_eq!(settings.samples, None);
        assert_eq!(settings.suggestions.insert_as, InsertStyle::Pytest);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let (flat, _) = Settings::from_json(&json!({"engine": "tracer"}));
        assert_eq!(flat.engine, Backend::Tracer);
        assert!(!flat.uses_tracer());
    }
}

//! Settings under `neuralDebugger`: pulled with `workspace/configuration`
//! after `initialized` and on `workspace/didChangeConfiguration` (whose
//! pushed settings are used when the client cannot be asked).

use serde_json::Value;
use tower_lsp_server::ls_types::*;

use crate::server::Server;
use crate::settings::Settings;

/// Asks the client for the `neuralDebugger` section, when it can answer.
pub async fn pull(server: &Server) {
    if !server.session().client.configuration {
        return;
    }
    let items = vec![ConfigurationItem {
        scope_uri: None,
        section: Some("neuralDebugger".to_string()),
    }];
    match server.client.configuration(items).await {
        Ok(values) => {
            if let Some(value) = values.into_iter().next().filter(|value| !value.is_null()) {
                apply(server, &value);
            }
        }
        Err(error) => eprintln!("ndb lsp: workspace/configuration failed: {error}"),
    }
}

pub async fn did_change(server: &Server, params: DidChangeConfigurationParams) {
    if server.session().client.configuration {
        pull(server).await;
    } else if !params.settings.is_null() {
        apply(server, &params.settings);
    }
    if !server.session().settings.uses_tracer() {
        crate::handlers::lifecycle::load_model(server).await;
    }
    server.refresh().await;
}

/// Lays `over` onto `base`, object by object: the editor's settings win,
/// the `initializationOptions` fill in what the editor does not set.
pub fn merge(base: &Value, over: &Value) -> Value {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            let mut merged = base.clone();
            for (key, value) in over {
                let combined = match merged.get(key) {
                    Some(existing) => merge(existing, value),
                    None => value.clone(),
                };
                merged.insert(key.clone(), combined);
            }
            Value::Object(merged)
        }
        (_, Value::Null) => base.clone(),
        (_, over) => over.clone(),
    }
}

fn apply(server: &Server, value: &Value) {
    let value = value.get("neuralDebugger").unwrap_or(value);
    let base = server.session().initial_settings.clone();
    let (settings, problems) = Settings::from_json(&merge(&base, value));
    for problem in &problems {
        eprintln!("ndb lsp: ignored setting {problem}");
    }
    if let Some(python) = &settings.python {
        server.engine.set_python(python);
    }
    let mut session = server.session();
    // The model is chosen at start; keep what the start chose.
    let model_path = session.settings.model_path.clone();
    let model_server = session.settings.model_server.clone();
    session.settings = Settings {
        model_path,
        model_server,
        ..settings
    };
}

// The status bar item's text, from what the server reports: the client's
// state, and the `$/progress` the server sends under the token
// `ndb-model-load` (the model loading in the background; its end says
// "loaded in N s" or "failed") and `ndb-prediction-N` (a prediction
// running longer than about a second). No `vscode` import.

export const MODEL_LOAD_TOKEN = "ndb-model-load";
export const PREDICTION_TOKEN_PREFIX = "ndb-prediction-";

export type ServerState = "starting" | "running" | "stopped" | "missing";
export type ModelState = "unknown" | "loading" | "loaded" | "failed";

/** A `$/progress` value (the work-done kinds of the protocol). */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
}

export interface StatusView {
  text: string;
  tooltip: string;
}

export class Status {
  server: ServerState = "stopped";
  model: ModelState = "unknown";
  modelMessage = "";
  missingMessage = "";
  usesTracer = false;
  private predictions = new Map<string, string>();

  serverState(state: ServerState, message = ""): void {
    this.server = state;
    if (state === "missing") {
      this.missingMessage = message;
    }
    if (state !== "running") {
      // A new server reports its own model and predictions.
      this.predictions.clear();
      if (state !== "starting") {
        this.model = "unknown";
        this.modelMessage = "";
      }
    }
  }

  /** Feeds one `$/progress`; answers whether it was the server's. */
  progress(token: string | number, value: ProgressValue): boolean {
    const name = String(token);
    if (name === MODEL_LOAD_TOKEN) {
      if (value.kind === "begin") {
        this.model = "loading";
        this.modelMessage = value.message ?? "";
      } else if (value.kind === "end") {
        const message = value.message ?? "";
        this.model = message === "failed" ? "failed" : "loaded";
        this.modelMessage = message;
      }
      return true;
    }
    if (name.startsWith(PREDICTION_TOKEN_PREFIX)) {
      if (value.kind === "begin") {
        this.predictions.set(name, value.title ?? "ndb: predicting");
      } else if (value.kind === "end") {
        this.predictions.delete(name);
      }
      return true;
    }
    return false;
  }

  /** The model could not be loaded (the server's error message). */
  modelFailed(message: string): void {
    this.model = "failed";
    this.modelMessage = message;
  }

  view(): StatusView {
    switch (this.server) {
      case "missing":
        return { text: "$(error) ndb: not found", tooltip: this.missingMessage };
      case "stopped":
        return { text: "$(debug-disconnect) ndb: stopped", tooltip: "ndb lsp is not running. Click to restart it." };
      case "starting":
        return { text: "$(sync~spin) ndb: starting", tooltip: "Starting ndb lsp" };
      case "running":
        break;
    }
    if (this.predictions.size > 0) {
      return {
        text: "$(sync~spin) ndb: predicting",
        tooltip: [...this.predictions.values()].join("\n"),
      };
    }
    if (this.usesTracer) {
      return {
        text: "$(play) ndb: tracer",
        tooltip: "The tracer engine shows real values: your code is run (neuralDebugger.engine is \"tracer\").",
      };
    }
    switch (this.model) {
      case "loading":
        return { text: "$(sync~spin) ndb: loading model", tooltip: "ndb: loading the neural debugger model" };
      case "loaded":
        return {
          text: "$(check) ndb: model ready",
          tooltip: `The neural debugger model is loaded${this.modelMessage ? ` (${this.modelMessage})` : ""}. Predictions are marked ≈; nothing is run.`,
        };
      case "failed":
        return {
          text: "$(warning) ndb: no model",
          tooltip:
            "The neural debugger model could not be loaded: predictions are off. Breakpoints, entry calls and " +
            "(with neuralDebugger.allowRunningCode) checking by running still work." +
            (this.modelMessage && this.modelMessage !== "failed" ? `\n${this.modelMessage}` : ""),
        };
      case "unknown":
        return { text: "$(debug-alt) ndb", tooltip: "ndb lsp is running." };
    }
  }
}

/** Whether the server's settings make it use the tracer instead of the model. */
export function usesTracer(settings: { engine?: unknown; allowRunningCode?: unknown }): boolean {
  return settings.engine === "tracer" && settings.allowRunningCode === true;
}

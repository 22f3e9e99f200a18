// The settings under `neuralDebugger`: which of them belong to the server
// (docs/lsp.md, "Settings") and which only to this extension, and how the
// server's are handed over. No `vscode` import, so the unit tests run in
// plain node.

/** The server's settings, as dotted keys below `neuralDebugger`. */
export const SERVER_SETTINGS: readonly string[] = [
  "allowRunningCode",
  "engine",
  "samples",
  "modelPath",
  "modelServer",
  "python",
  "inlayHints.breakpoints",
  "inlayHints.returnValues",
  "inlayHints.maxLength",
  "hover.enable",
  "hover.waitMs",
  "codeLens.enable",
  "suggestions.insertAs",
  "suggestions.useModel",
  "suggestions.maxRuns",
  "suggestions.maxSeconds",
  "outputMode",
  "debounceMs",
  "scanTestFiles",
];

/** Settings this extension reads itself; the server never sees them. */
export const CLIENT_SETTINGS: readonly string[] = [
  "serverPath",
  "serverArgs",
  "mirrorBreakpoints",
  "trace.server",
  "mcp.enable",
  "mcp.allowRunningCode",
  "mcp.args",
];

/** The settings section, in VS Code and in the protocol. */
export const SECTION = "neuralDebugger";

export type JsonObject = { [key: string]: unknown };

/**
 * The server's settings as the nested object it reads
 * (`{"inlayHints": {"maxLength": 80}, ...}`), from a getter of dotted
 * keys. Unset values (`undefined`, `null`) are left out, so the server
 * keeps its own default or the one from its command line.
 */
export function serverSettings(get: (key: string) => unknown): JsonObject {
  const settings: JsonObject = {};
  for (const key of SERVER_SETTINGS) {
    const value = get(key);
    if (value === undefined || value === null || value === "") {
      continue;
    }
    const parts = key.split(".");
    let object = settings;
    for (const part of parts.slice(0, -1)) {
      if (typeof object[part] !== "object" || object[part] === null) {
        object[part] = {};
      }
      object = object[part] as JsonObject;
    }
    object[parts[parts.length - 1]] = value;
  }
  return settings;
}

/** What `initializationOptions` carries: the settings under their section. */
export function initializationOptions(get: (key: string) => unknown): JsonObject {
  return { [SECTION]: serverSettings(get) };
}

/**
 * Whether a change of configuration needs the server restarted: the
 * server reads `samples` and `modelPath` at start only, and the launch
 * settings are the command line itself.
 */
export const RESTART_SETTINGS: readonly string[] = ["serverPath", "serverArgs", "samples", "modelPath", "modelServer"];

// The MCP server this extension registers for VS Code's agent mode:
// `ndb mcp` from the same binary as the language server, with the model
// and Python settings the editor uses, and running code only when
// `neuralDebugger.mcp.allowRunningCode` says so. No `vscode` import, so the
// unit tests run in plain node; extension.ts hands the definition to
// `vscode.lm.registerMcpServerDefinitionProvider`.

/** The provider's id: package.json's `contributes.mcpServerDefinitionProviders`. */
export const MCP_PROVIDER_ID = "neuralDebugger.mcpServers";

/** The server's name in VS Code's MCP views. */
export const MCP_LABEL = "ndb: neural debugger";

/** Settings that change the registered server (the editor is told to refresh). */
export const MCP_SETTINGS: readonly string[] = [
  "serverPath",
  "modelPath",
  "modelServer",
  "python",
  "samples",
  "mcp.enable",
  "mcp.allowRunningCode",
  "mcp.args",
];

export interface McpDefinition {
  label: string;
  command: string;
  args: string[];
  /** Changes whenever the arguments do, so VS Code offers to refresh the tools. */
  version: string;
}

/** A getter of `neuralDebugger.*` settings by dotted key. */
export type Get = (key: string) => unknown;

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/**
 * `ndb mcp` and its flags from the settings: `--model`, `--python`,
 * `--samples` as the language server gets them, `--allow-run` only with
 * `mcp.allowRunningCode` (the agent then runs code in the sandbox), then
 * `mcp.args` as given.
 */
export function mcpArgs(get: Get): string[] {
  const args = ["mcp"];
  const server = text(get("modelServer"));
  const model = text(get("modelPath"));
  if (server) {
    args.push("--server", server);
  } else if (model) {
    args.push("--model", model);
  }
  const python = text(get("python"));
  if (python) {
    args.push("--python", python);
  }
  const samples = get("samples");
  if (typeof samples === "number" && Number.isInteger(samples) && samples >= 1) {
    args.push("--samples", String(samples));
  }
  if (get("mcp.allowRunningCode") === true) {
    args.push("--allow-run");
  }
  const extra = get("mcp.args");
  if (Array.isArray(extra)) {
    args.push(...extra.filter((item): item is string => typeof item === "string"));
  }
  return args;
}

/**
 * The server to register, or none: `mcp.enable` off, or no `ndb` binary
 * (`command` undefined: the language server's own message says why).
 */
export function mcpDefinition(command: string | undefined, get: Get, extensionVersion: string): McpDefinition[] {
  if (get("mcp.enable") === false || !command) {
    return [];
  }
  const args = mcpArgs(get);
  return [{ label: MCP_LABEL, command, args, version: `${extensionVersion}+${args.join(" ")}` }];
}

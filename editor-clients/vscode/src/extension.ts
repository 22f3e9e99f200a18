// The VS Code side of ndb: starts `ndb lsp` for Python files, hands it the
// `neuralDebugger.*` settings, mirrors the gutter breakpoints into
// `ndb/setBreakpoints`, shows the model's state in the status bar and
// offers the server's operations as commands. Everything that can be
// decided without VS Code lives in the modules beside this one (and is
// unit-tested there); this file only wires them to the editor.

import * as os from "node:os";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

import { BreakpointMirror, SET_BREAKPOINTS, SourceBreakpointInfo } from "./breakpoints";
import { CommandSpec, COMMANDS, commandArgument, describeResult } from "./commands";
import { MCP_PROVIDER_ID, MCP_SETTINGS, mcpDefinition } from "./mcp";
import { isExecutableFile, resolveServer } from "./serverPath";
import { initializationOptions, RESTART_SETTINGS, SECTION, serverSettings } from "./settings";
import { Status, usesTracer } from "./status";

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
const status = new Status();
const mirror = new BreakpointMirror();

function configuration(scope?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

function render(): void {
  const view = status.view();
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.command = status.server === "missing" || status.server === "stopped"
    ? "neuralDebugger.restartServer"
    : "neuralDebugger.showOutput";
  statusItem.show();
}

function refreshTracerStatus(): void {
  status.usesTracer = usesTracer(serverSettings((key) => configuration().get(key)));
  render();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("ndb", { log: true });
  statusItem = vscode.window.createStatusBarItem("neuralDebugger.status", vscode.StatusBarAlignment.Left, 50);
  statusItem.name = "ndb: neural debugger";
  context.subscriptions.push(output, statusItem);

  for (const spec of COMMANDS) {
    context.subscriptions.push(vscode.commands.registerCommand(spec.id, () => runAtCursor(spec)));
  }
  context.subscriptions.push(
    vscode.commands.registerCommand("neuralDebugger.clearBreakpoints", clearBreakpoints),
    vscode.commands.registerCommand("neuralDebugger.restartServer", restart),
    vscode.commands.registerCommand("neuralDebugger.showOutput", () => output.show(true)),
    vscode.debug.onDidChangeBreakpoints(syncBreakpoints),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) {
        return;
      }
      refreshTracerStatus();
      if (RESTART_SETTINGS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        await restart();
      } else if (event.affectsConfiguration(`${SECTION}.mirrorBreakpoints`)) {
        syncBreakpoints();
      }
    }),
  );
  registerMcpServer(context);
  refreshTracerStatus();
  await start();
}

/**
 * `ndb mcp` for VS Code's agent mode, from the same binary as the language
 * server; the editor is told to refresh it when a setting it uses changes.
 */
function registerMcpServer(context: vscode.ExtensionContext): void {
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (MCP_SETTINGS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        changed.fire();
      }
    }),
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        const resolved = resolveServer(configuration().get<string>("serverPath"), [], serverEnvironment());
        const version = String(context.extension.packageJSON.version ?? "0");
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        return mcpDefinition(resolved.ok ? resolved.command : undefined, (key) => configuration().get(key), version).map(
          (definition) => {
            const server = new vscode.McpStdioServerDefinition(
              definition.label,
              definition.command,
              definition.args,
              {},
              definition.version,
            );
            // Relative paths and the MCP roots' fallback: the workspace.
            server.cwd = folder;
            return server;
          },
        );
      },
    }),
  );
}

function serverEnvironment() {
  return {
    path: process.env.PATH ?? process.env.Path,
    pathExt: process.env.PATHEXT,
    home: os.homedir(),
    platform: process.platform,
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    isExecutable: isExecutableFile,
  };
}

export async function deactivate(): Promise<void> {
  const running = client;
  client = undefined;
  await running?.stop();
}

async function start(): Promise<void> {
  const resolved = resolveServer(
    configuration().get<string>("serverPath"),
    configuration().get<string[]>("serverArgs"),
    serverEnvironment(),
  );
  if (!resolved.ok) {
    status.serverState("missing", resolved.message);
    render();
    output.appendLine(resolved.message);
    void vscode.window.showErrorMessage(resolved.message, "Open Settings").then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.serverPath`);
      }
    });
    return;
  }
  output.appendLine(`Starting ${resolved.command} ${resolved.args.join(" ")}`);
  // No `transport`: the server speaks on its stdin and stdout, and a
  // transport would add a `--stdio` argument `ndb lsp` does not take.
  const serverOptions: ServerOptions = { command: resolved.command, args: resolved.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    outputChannel: output,
    initializationOptions: initializationOptions((key) => configuration().get(key)),
    synchronize: { configurationSection: SECTION },
    middleware: {
      workspace: {
        // Answer `workspace/configuration` with the server's settings only
        // (not serverPath and the other settings of this extension).
        configuration: (params, token, next) => {
          const items = params.items.map((item) => {
            if (item.section !== SECTION) {
              return undefined;
            }
            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
            return serverSettings((key) => configuration(scope).get(key));
          });
          if (items.every((item) => item !== undefined)) {
            return items;
          }
          return Promise.resolve(next(params, token)).then((answers) =>
            Array.isArray(answers) ? answers.map((answer, index) => items[index] ?? answer) : answers,
          );
        },
      },
      handleWorkDoneProgress: (token, params, next) => {
        if (status.progress(token, params)) {
          render();
        }
        next(token, params);
      },
    },
  };
  const created = new LanguageClient("neuralDebugger", "ndb", serverOptions, clientOptions);
  client = created;
  created.onDidChangeState((event) => {
    if (client !== created) {
      return;
    }
    switch (event.newState) {
      case State.Starting:
        status.serverState("starting");
        break;
      case State.Running:
        status.serverState("running");
        // A new server knows no breakpoints: tell it all of them.
        mirror.reset();
        syncBreakpoints();
        break;
      case State.Stopped:
        status.serverState("stopped");
        break;
    }
    render();
  });
  status.serverState("starting");
  render();
  try {
    await created.start();
  } catch (error) {
    status.serverState("stopped");
    render();
    const message = `ndb: the language server did not start: ${error instanceof Error ? error.message : String(error)}`;
    output.appendLine(message);
    void vscode.window.showErrorMessage(message);
  }
}

async function restart(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output.appendLine(`ndb: stopping the server failed: ${String(error)}`);
    }
  }
  status.serverState("stopped");
  await start();
}

function sourceBreakpoints(): vscode.SourceBreakpoint[] {
  return vscode.debug.breakpoints.filter(
    (breakpoint): breakpoint is vscode.SourceBreakpoint => breakpoint instanceof vscode.SourceBreakpoint,
  );
}

function mirroring(): boolean {
  return configuration().get<boolean>("mirrorBreakpoints", true);
}

/** Sends the documents whose gutter breakpoints changed. */
function syncBreakpoints(): void {
  const running = client;
  if (!running || !running.isRunning()) {
    return;
  }
  const breakpoints: SourceBreakpointInfo[] = mirroring()
    ? sourceBreakpoints().map((breakpoint) => ({
        uri: running.code2ProtocolConverter.asUri(breakpoint.location.uri),
        line: breakpoint.location.range.start.line,
        enabled: breakpoint.enabled,
      }))
    : [];
  for (const params of mirror.update(breakpoints)) {
    void running.sendNotification(SET_BREAKPOINTS, params);
  }
}

function pythonEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "python") {
    void vscode.window.showWarningMessage("ndb: open a Python file and put the cursor in a function first.");
    return undefined;
  }
  return editor;
}

async function clearBreakpoints(): Promise<void> {
  const editor = pythonEditor();
  if (!editor) {
    return;
  }
  const uri = editor.document.uri;
  if (mirroring()) {
    vscode.debug.removeBreakpoints(
      sourceBreakpoints().filter((breakpoint) => breakpoint.location.uri.toString() === uri.toString()),
    );
  } else if (client?.isRunning()) {
    await client.sendNotification(SET_BREAKPOINTS, { uri: client.code2ProtocolConverter.asUri(uri), lines: [] });
  }
}

/** With mirroring on, a neural breakpoint is a gutter breakpoint. */
function toggleGutterBreakpoint(editor: vscode.TextEditor): void {
  const uri = editor.document.uri;
  const line = editor.selection.active.line;
  const existing = sourceBreakpoints().filter(
    (breakpoint) =>
      breakpoint.location.uri.toString() === uri.toString() && breakpoint.location.range.start.line === line,
  );
  if (existing.length > 0) {
    vscode.debug.removeBreakpoints(existing);
  } else {
    vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(uri, new vscode.Position(line, 0)))]);
  }
}

async function ask(spec: CommandSpec): Promise<string | undefined | null> {
  switch (spec.prompt) {
    case "none":
      return undefined;
    case "optionalOutput": {
      const typed = await vscode.window.showInputBox({
        title: "ndb: suggest inputs",
        prompt: "Suggest inputs that make the function return this value (a Python literal); leave empty for any output.",
        placeHolder: "e.g. [3, 2, 1]",
      });
      return typed === undefined ? null : typed;
    }
    case "input": {
      const typed = await vscode.window.showInputBox({
        title: "ndb: insert a call as a test",
        prompt: "The arguments of the call, as you would write them between the parentheses.",
        placeHolder: "e.g. [1, 2, 3], [3, 2, 1]",
        validateInput: (value) => (value.trim() ? undefined : "Type the arguments of the call"),
      });
      return typed === undefined ? null : typed;
    }
  }
}

/** Runs a server command on the function under the cursor. */
async function runAtCursor(spec: CommandSpec): Promise<void> {
  const editor = pythonEditor();
  if (!editor) {
    return;
  }
  if (spec.server === "ndb.toggleBreakpoint" && mirroring()) {
    toggleGutterBreakpoint(editor);
    return;
  }
  const running = client;
  if (!running || !running.isRunning()) {
    void vscode.window.showErrorMessage("ndb: the language server is not running (see the ndb output).");
    return;
  }
  const typed = await ask(spec);
  if (typed === null) {
    return;
  }
  const argument = commandArgument(
    spec,
    running.code2ProtocolConverter.asUri(editor.document.uri),
    editor.selection.active.line,
    typed,
  );
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `${spec.server}…`, cancellable: false },
      () => running.sendRequest(ExecuteCommandRequest.type, { command: spec.server, arguments: [argument] }),
    );
    const sentence = describeResult(spec.server, result);
    if (sentence) {
      void vscode.window.showInformationMessage(sentence);
    }
  } catch (error) {
    void vscode.window.showErrorMessage(`ndb: ${error instanceof Error ? error.message : String(error)}`);
  }
}

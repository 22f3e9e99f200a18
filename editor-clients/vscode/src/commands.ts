// The extension's commands and the server commands behind them
// (docs/lsp-protocol-extensions.md, "Commands"), the argument each sends,
// and the sentence each answer becomes. No `vscode` import.
//
// The extension's own commands are named `neuralDebugger.*`: the language
// client registers the server's `ndb.*` commands itself (so the lenses and
// code actions can run them), and one id cannot be registered twice.

export type ServerCommand =
  | "ndb.toggleBreakpoint"
  | "ndb.chooseEntryCall"
  | "ndb.predict"
  | "ndb.suggestInputs"
  | "ndb.insertSuggestion"
  | "ndb.checkByRunning";

/** What a command asks the user before it runs. */
export type Prompt = "none" | "optionalOutput" | "input";

export interface CommandSpec {
  /** The extension's command id (package.json `contributes.commands`). */
  id: string;
  /** The server command it runs. */
  server: ServerCommand;
  prompt: Prompt;
}

export const COMMANDS: readonly CommandSpec[] = [
  { id: "neuralDebugger.toggleBreakpoint", server: "ndb.toggleBreakpoint", prompt: "none" },
  { id: "neuralDebugger.chooseEntryCall", server: "ndb.chooseEntryCall", prompt: "none" },
  { id: "neuralDebugger.predict", server: "ndb.predict", prompt: "none" },
  { id: "neuralDebugger.suggestInputs", server: "ndb.suggestInputs", prompt: "optionalOutput" },
  { id: "neuralDebugger.insertSuggestion", server: "ndb.insertSuggestion", prompt: "input" },
  { id: "neuralDebugger.checkByRunning", server: "ndb.checkByRunning", prompt: "none" },
];

/** Commands of the extension alone. */
export const CLIENT_COMMANDS: readonly string[] = [
  "neuralDebugger.clearBreakpoints",
  "neuralDebugger.restartServer",
  "neuralDebugger.showOutput",
];

/**
 * The one argument of a server command run at the cursor: the document
 * and the 0-based line (the server picks the function holding that line),
 * plus what the user typed.
 */
export function commandArgument(
  spec: CommandSpec,
  uri: string,
  line: number,
  typed?: string,
): Record<string, unknown> {
  const argument: Record<string, unknown> = { uri, line };
  const text = typed?.trim();
  if (spec.prompt === "optionalOutput" && text) {
    argument.output = text;
  }
  if (spec.prompt === "input") {
    argument.input = text ?? "";
  }
  return argument;
}

/** ", confidence 42% (a guess)": the server's measured confidence and verdict. */
function confidence(value: unknown): string {
  if (value && typeof value === "object") {
    const { value: share, verdict } = value as { value?: unknown; verdict?: unknown };
    if (typeof share === "number" && typeof verdict === "string") {
      const percent = Math.round(share * 100);
      return `, confidence ${percent}% (${verdict === "guess" ? "a guess" : "likely"})`;
    }
  }
  return "";
}

/**
 * The sentence shown after a server command answered; `undefined` when the
 * server already told the user (pickers, its own messages) or there is
 * nothing to say.
 */
export function describeResult(server: ServerCommand, result: unknown): string | undefined {
  if (!result || typeof result !== "object") {
    return undefined;
  }
  const answer = result as Record<string, unknown>;
  switch (server) {
    case "ndb.toggleBreakpoint": {
      const lines = Array.isArray(answer.lines) ? (answer.lines as number[]) : [];
      return lines.length === 0
        ? "ndb: no neural breakpoints in this file"
        : `ndb: neural breakpoints on line${lines.length > 1 ? "s" : ""} ${lines.map((line) => line + 1).join(", ")}`;
    }
    case "ndb.chooseEntryCall":
      return typeof answer.entryCall === "string" ? `ndb: ${answer.function} now starts from ${answer.entryCall}` : undefined;
    case "ndb.predict": {
      const call = String(answer.entryCall ?? "");
      if (typeof answer.error === "string") {
        return `ndb: no prediction for ${call}: ${answer.error}`;
      }
      if (!("value" in answer)) {
        return undefined;
      }
      const verb = answer.raised ? "raises" : "returns";
      const value = answer.value === null || answer.value === undefined ? "None" : String(answer.value);
      const mark = answer.predicted === false ? "(ran)" : "≈";
      const tail = answer.predicted === false ? ", the code was run" : `${confidence(answer.confidence)}, nothing was run`;
      return `ndb: ${call} ${mark} ${verb} ${value}${tail}`;
    }
    case "ndb.suggestInputs": {
      const suggestions = Array.isArray(answer.suggestions) ? answer.suggestions : [];
      if (answer.inserted) {
        return undefined;
      }
      if (suggestions.length === 0 && typeof answer.error !== "string") {
        return `ndb: the model proposed no inputs for ${answer.function}`;
      }
      return undefined;
    }
    case "ndb.insertSuggestion":
      if (answer.applied === false) {
        return "ndb: the edit was not applied";
      }
      return typeof answer.entryCall === "string" ? `ndb: inserted ${answer.entryCall} as a ${answer.style}` : undefined;
    case "ndb.checkByRunning":
      // The server shows the comparison itself.
      return undefined;
  }
}

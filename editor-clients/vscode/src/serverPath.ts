// Where the `ndb` binary is: the `neuralDebugger.serverPath` setting, else
// `ndb` on PATH, else a message that says what to do. No `vscode` import.

import * as fs from "node:fs";
import * as path from "node:path";

export interface Environment {
  /** PATH (or Path on Windows). */
  path: string | undefined;
  /** PATHEXT, on Windows. */
  pathExt?: string | undefined;
  home: string | undefined;
  platform: NodeJS.Platform;
  /** The first workspace folder, for `${workspaceFolder}`. */
  workspaceFolder?: string | undefined;
  /** Whether a file exists and may be executed. */
  isExecutable: (file: string) => boolean;
}

export type Resolved =
  | { ok: true; command: string; args: string[] }
  | { ok: false; message: string };

export const MISSING_MESSAGE =
  "ndb: the `ndb` binary was not found on PATH. Install it (`cargo install --path .` in the ndb " +
  "repository) or set `neuralDebugger.serverPath` to its full path.";

/** Expands `~` and `${workspaceFolder}` in the setting. */
export function expand(setting: string, environment: Environment): string {
  let value = setting.trim();
  if (environment.home && (value === "~" || value.startsWith("~/") || value.startsWith("~\\"))) {
    value = environment.home + value.slice(1);
  }
  if (value.includes("${workspaceFolder}")) {
    value = value.split("${workspaceFolder}").join(environment.workspaceFolder ?? "");
  }
  return value;
}

/** The first `name` on PATH that may be executed, with PATHEXT on Windows. */
export function findOnPath(name: string, environment: Environment): string | undefined {
  const windows = environment.platform === "win32";
  const separator = windows ? ";" : ":";
  const extensions = windows
    ? (environment.pathExt ?? ".EXE;.CMD;.BAT;.COM").split(";").filter((extension) => extension)
    : [""];
  for (const directory of (environment.path ?? "").split(separator)) {
    if (!directory) {
      continue;
    }
    for (const extension of extensions) {
      const candidate = (windows ? path.win32 : path.posix).join(directory, name + extension);
      if (environment.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * The command that starts the server: `<ndb> lsp <serverArgs...>`.
 * A set `serverPath` that does not exist is an error of its own (naming
 * the path), not a silent fallback to PATH.
 */
export function resolveServer(
  serverPath: string | undefined,
  serverArgs: readonly string[] | undefined,
  environment: Environment,
): Resolved {
  const args = ["lsp", ...(serverArgs ?? [])];
  const setting = (serverPath ?? "").trim();
  if (setting) {
    const file = expand(setting, environment);
    if (!environment.isExecutable(file)) {
      return {
        ok: false,
        message: `ndb: neuralDebugger.serverPath is set to "${file}", which is not an executable file. Fix the setting or clear it to use \`ndb\` on PATH.`,
      };
    }
    return { ok: true, command: file, args };
  }
  const found = findOnPath("ndb", environment);
  if (!found) {
    return { ok: false, message: MISSING_MESSAGE };
  }
  return { ok: true, command: found, args };
}

/** `isExecutable` for the real file system. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, process.platform === "win32" ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

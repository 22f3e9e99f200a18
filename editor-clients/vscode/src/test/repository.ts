// Paths of the files the tests compare the extension with: its own
// package.json and the server's documentation.

import * as fs from "node:fs";
import * as path from "node:path";

/** editor-clients/vscode, from out/test/. */
export const EXTENSION_ROOT = path.resolve(__dirname, "..", "..");
/** The ndb repository. */
export const REPOSITORY_ROOT = path.resolve(EXTENSION_ROOT, "..", "..");

export function readJson(file: string): any {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

export function packageJson(): any {
  return readJson(path.join(EXTENSION_ROOT, "package.json"));
}

export function doc(name: string): string {
  return fs.readFileSync(path.join(REPOSITORY_ROOT, "docs", name), "utf8");
}

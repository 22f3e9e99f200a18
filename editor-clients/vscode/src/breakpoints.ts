// Mirroring of the editor's own breakpoints into `ndb/setBreakpoints`
// (docs/lsp-protocol-extensions.md): one notification per document whose
// set changed, with its whole set of 0-based lines, and an empty list when
// a document's last breakpoint goes. No `vscode` import.

/** A source breakpoint as the editor reports it. */
export interface SourceBreakpointInfo {
  /** The document, as the protocol names it (the same string didOpen used). */
  uri: string;
  /** 0-based line. */
  line: number;
  enabled: boolean;
}

/** The params of `ndb/setBreakpoints`. */
export interface SetBreakpointsParams {
  uri: string;
  lines: number[];
}

export const SET_BREAKPOINTS = "ndb/setBreakpoints";

/** Only Python files go to the server. */
export function isPythonUri(uri: string): boolean {
  const path = uri.split(/[?#]/)[0].toLowerCase();
  return path.endsWith(".py") || path.endsWith(".pyi");
}

/**
 * The enabled breakpoints of Python documents, grouped by document, each
 * set sorted and without duplicates.
 */
export function groupByDocument(breakpoints: readonly SourceBreakpointInfo[]): Map<string, number[]> {
  const sets = new Map<string, Set<number>>();
  for (const breakpoint of breakpoints) {
    if (!breakpoint.enabled || !isPythonUri(breakpoint.uri) || breakpoint.line < 0) {
      continue;
    }
    let lines = sets.get(breakpoint.uri);
    if (!lines) {
      lines = new Set();
      sets.set(breakpoint.uri, lines);
    }
    lines.add(breakpoint.line);
  }
  const grouped = new Map<string, number[]>();
  for (const [uri, lines] of sets) {
    grouped.set(
      uri,
      [...lines].sort((a, b) => a - b),
    );
  }
  return grouped;
}

function sameLines(a: readonly number[] | undefined, b: readonly number[]): boolean {
  return a !== undefined && a.length === b.length && a.every((line, index) => line === b[index]);
}

/**
 * Remembers what the server was told, so each change of the editor's
 * breakpoints sends only the documents whose set changed.
 */
export class BreakpointMirror {
  private sent = new Map<string, number[]>();

  /** The notifications that bring the server to `breakpoints`. */
  update(breakpoints: readonly SourceBreakpointInfo[]): SetBreakpointsParams[] {
    const current = groupByDocument(breakpoints);
    const notifications: SetBreakpointsParams[] = [];
    for (const [uri, lines] of current) {
      if (!sameLines(this.sent.get(uri), lines)) {
        notifications.push({ uri, lines });
      }
    }
    for (const uri of this.sent.keys()) {
      if (!current.has(uri)) {
        notifications.push({ uri, lines: [] });
      }
    }
    this.sent = current;
    return notifications;
  }

  /** Forgets what was sent (a new server knows nothing). */
  reset(): void {
    this.sent = new Map();
  }

  /** The lines last sent for a document. */
  linesOf(uri: string): readonly number[] {
    return this.sent.get(uri) ?? [];
  }
}

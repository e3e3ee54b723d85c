// Diagnostics selection for "Agent: Fix This": which range the agent works on
// and which diagnostics (from every source, not only cb-ls) travel with it.
// Pure logic over plain objects so it is unit-tested without VS Code.

/** Position is an LSP/VS Code position (0-based line, UTF-16 character). */
export interface Position {
  line: number;
  character: number;
}

/** Range is an LSP/VS Code range; end is exclusive. */
export interface Range {
  start: Position;
  end: Position;
}

/** SourceDiagnostic is the part of a vscode.Diagnostic the agent needs. */
export interface SourceDiagnostic {
  range: Range;
  message: string;
  /** VS Code's DiagnosticSeverity: 0 Error, 1 Warning, 2 Information, 3 Hint. */
  severity: number;
  source?: string;
  code?: string | number | { value: string | number; target: { toString(): string } };
  tags?: readonly number[];
}

/** LspDiagnostic is an LSP Diagnostic as the server expects it in catbuddy.run. */
export interface LspDiagnostic {
  range: Range;
  message: string;
  severity: 1 | 2 | 3 | 4;
  source?: string;
  code?: string | number;
  codeDescription?: { href: string };
  tags?: number[];
}

/** comparePositions orders positions: negative when a is before b. */
export function comparePositions(a: Position, b: Position): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}

/** isEmpty reports whether a range selects nothing (a cursor). */
export function isEmpty(r: Range): boolean {
  return comparePositions(r.start, r.end) === 0;
}

/**
 * touches reports whether two ranges overlap or meet. Meeting counts because a
 * diagnostic that ends exactly where the selection starts (or an empty
 * diagnostic at the cursor) is still about that code.
 */
export function touches(a: Range, b: Range): boolean {
  return comparePositions(a.start, b.end) <= 0 && comparePositions(b.start, a.end) <= 0;
}

function union(a: Range, b: Range): Range {
  return {
    start: comparePositions(a.start, b.start) <= 0 ? a.start : b.start,
    end: comparePositions(a.end, b.end) >= 0 ? a.end : b.end,
  };
}

/**
 * targetRange is the range a command works on. A non-empty selection is used
 * as is, except that a selection of whole lines (ending at column 0 of the
 * next line, as VS Code makes it) stops at the end of its last line, so the
 * next line's diagnostics do not come along. An empty selection means the
 * cursor's line, widened to cover any diagnostic under the cursor.
 */
export function targetRange(
  selection: Range,
  lineLength: (line: number) => number,
  diagnostics: readonly { range: Range }[],
): Range {
  if (!isEmpty(selection)) {
    const { start, end } = selection;
    if (end.character === 0 && end.line > start.line) {
      return { start, end: { line: end.line - 1, character: lineLength(end.line - 1) } };
    }
    return selection;
  }
  const line = selection.start.line;
  let r: Range = { start: { line, character: 0 }, end: { line, character: lineLength(line) } };
  for (const d of diagnostics) {
    if (touches(d.range, selection)) {
      r = union(r, d.range);
    }
  }
  return r;
}

/** diagnosticsIn returns the diagnostics touching range, in document order. */
export function diagnosticsIn<D extends { range: Range }>(range: Range, diagnostics: readonly D[]): D[] {
  return diagnostics
    .filter((d) => touches(d.range, range))
    .sort((a, b) => comparePositions(a.range.start, b.range.start));
}

/** toLsp converts a VS Code diagnostic to the LSP shape (severity is 1-based there). */
export function toLsp(d: SourceDiagnostic): LspDiagnostic {
  const out: LspDiagnostic = {
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
    message: d.message,
    severity: (Math.min(Math.max(d.severity, 0), 3) + 1) as LspDiagnostic['severity'],
  };
  if (d.source) {
    out.source = d.source;
  }
  if (typeof d.code === 'string' || typeof d.code === 'number') {
    out.code = d.code;
  } else if (d.code && typeof d.code === 'object') {
    out.code = d.code.value;
    out.codeDescription = { href: d.code.target.toString() };
  }
  if (d.tags && d.tags.length > 0) {
    out.tags = [...d.tags];
  }
  return out;
}

// Answers the server's catbuddy/diagnostics request: the document's
// diagnostics from every source (vscode.languages.getDiagnostics), once they
// have settled after the agent's edit, by the rule the request carries
// (settle.ts).

import * as vscode from 'vscode';
import { LspDiagnostic, toLsp } from './diagnostics';
import { settle, settleRule } from './settle';

/** DiagnosticsAnswerer tracks when documents and their diagnostics last changed. */
export class DiagnosticsAnswerer implements vscode.Disposable {
  private readonly lastChange = new Map<string, number>();
  private readonly lastDiagnostics = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  private readonly subs: vscode.Disposable[];

  constructor() {
    this.subs = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0) {
          this.lastChange.set(e.document.uri.toString(), Date.now());
        }
      }),
      vscode.languages.onDidChangeDiagnostics((e) => {
        const now = Date.now();
        e.uris.forEach((u) => this.lastDiagnostics.set(u.toString(), now));
        [...this.waiters].forEach((w) => w());
      }),
    ];
  }

  /** answer returns the settled diagnostics of params.uri in the LSP shape. */
  async answer(params: { uri?: string; settle?: unknown }): Promise<LspDiagnostic[]> {
    if (typeof params?.uri !== 'string') {
      throw new Error('catbuddy/diagnostics: missing uri');
    }
    const uri = vscode.Uri.parse(params.uri);
    const key = uri.toString();
    await settle(
      Date.now(),
      () => ({ lastChange: this.lastChange.get(key) ?? 0, lastDiagnostics: this.lastDiagnostics.get(key) ?? 0 }),
      { now: () => Date.now(), wait: (ms) => this.wait(ms) },
      settleRule(params),
    );
    return vscode.languages.getDiagnostics(uri).map((d) => toLsp(d));
  }

  /** wait resolves after ms, or when any document's diagnostics change. */
  private wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
    [...this.waiters].forEach((w) => w());
  }
}

// The Pending Changes view in the Catbuddy side bar: per run, each file with
// +added −removed lines, then its hunks; clicking a hunk opens it. Its rows'
// buttons send the same catbuddy.keep and catbuddy.discard as the CodeLens
// and the editor title, through commands of the view's own (pendingRow.ts),
// so the view only draws.
import * as vscode from 'vscode';
import { PendingModel } from './pendingModel';
import { fileContext } from './pendingFlags';
import { PendingNode } from './pendingRow';
import { fileRow, hunkRow } from './pendingConflict';

/** PendingTree provides the view's rows from the PendingModel. */
export class PendingTree implements vscode.TreeDataProvider<PendingNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: PendingModel) {}

  /** refresh redraws the view after the model changed. */
  refresh(): void {
    this.changed.fire();
  }

  getChildren(node?: PendingNode): PendingNode[] {
    if (!node) {
      return this.model.runIds().map((runId) => ({ type: 'run', runId }));
    }
    if (node.type === 'run') {
      return this.model.files(node.runId).map(({ file }) => ({ type: 'file', runId: node.runId, uri: file.uri, files: [file.uri] }));
    }
    if (node.type === 'file') {
      const file = this.model.run(node.runId)?.files.find((f) => f.uri === node.uri);
      // A whole-file item is its row: it has no lines to list.
      return file?.whole ? [] : (file?.hunks ?? []).map((h) => ({ type: 'hunk', runId: node.runId, uri: node.uri, hunk: h.id }));
    }
    return [];
  }

  getTreeItem(node: PendingNode): vscode.TreeItem {
    const run = this.model.run(node.runId);
    if (node.type === 'run') {
      const files = this.model.files(node.runId).length;
      const it = new vscode.TreeItem(run?.title ?? node.runId, vscode.TreeItemCollapsibleState.Expanded);
      it.id = `run:${node.runId}`;
      it.description = `${files} file${files === 1 ? '' : 's'}`;
      it.contextValue = 'catbuddyPendingRun';
      it.iconPath = new vscode.ThemeIcon('sparkle');
      return it;
    }
    if (node.type === 'file') {
      const f = this.model.files(node.runId).find((x) => x.file.uri === node.uri);
      const single = f?.file.group || f?.file.whole;
      const it = new vscode.TreeItem(f?.file.path ?? node.uri, single ? vscode.TreeItemCollapsibleState.None : vscode.TreeItemCollapsibleState.Expanded);
      it.id = `file:${node.runId}:${node.uri}`;
      it.resourceUri = vscode.Uri.parse(node.uri);
      // What keeping it does, before the user keeps it: runs later, not kept, its whole-file label.
      // A file with conflicted hunks says so: they need a resolution, not a Keep.
      const row = f && fileRow(f.file, f.added, f.removed);
      it.description = row ? row.description : '';
      it.tooltip = row ? row.tooltip : node.uri;
      it.contextValue = f ? fileContext(f.file) : 'catbuddyPendingFile';
      if (f && row?.warn) {
        it.iconPath = new vscode.ThemeIcon(f.file.keepRefused ? 'circle-slash' : 'warning', new vscode.ThemeColor('list.warningForeground'));
      }
      return it;
    }
    const file = run?.files.find((f) => f.uri === node.uri);
    const h = file?.hunks?.find((x) => x.id === node.hunk);
    const line = h ? h.range.start.line + 1 : 0;
    // Under its file, a hunk is named by its line; the label says both.
    const it = new vscode.TreeItem(`line ${line}`, vscode.TreeItemCollapsibleState.None);
    it.id = `hunk:${node.runId}:${node.hunk}`;
    const row = hunkRow(h, file);
    it.description = row.description;
    it.tooltip = row.tooltip;
    it.iconPath = row.conflict ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon('diff');
    // A conflicted hunk's row offers the resolutions instead of Keep.
    it.contextValue = row.contextValue;
    if (h) {
      const s = h.range.start;
      const e = h.range.end;
      it.command = { title: 'Open', command: 'vscode.open', arguments: [vscode.Uri.parse(node.uri), { selection: new vscode.Range(s.line, s.character, e.line, e.character) }] };
    }
    return it;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

// mentionInput is the agent's one-line input (Ask, and commands whose prompt
// takes ${input}) with workspace paths offered after "@". VS Code's input box
// cannot offer completions, so this is a quick pick that behaves like one:
// Enter submits what was typed, Escape cancels; only while the word being
// typed is an @-mention does it list files, and choosing one writes
// "@relative/path " in its place and keeps the input open. The chat view's
// input lists the same files, ranked here (listFiles, completePaths).

import * as vscode from 'vscode';
import { excludeGlob, Mention, mentionable, mentionAt, rankPaths, replaceMention } from './mention';

/** MAX_SHOWN bounds the files listed for one @word. */
const MAX_SHOWN = 50;
/** MAX_LISTED bounds the workspace files read once per input (the fuzzy match runs over them). */
const MAX_LISTED = 20000;

interface PathItem extends vscode.QuickPickItem {
  path: string;
}

/**
 * mentionInput asks for the agent's input; it resolves to the text, or
 * undefined when the user cancels or submits nothing (no run).
 */
export function mentionInput(title: string, placeholder: string): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick<PathItem>();
  qp.title = title;
  qp.placeholder = `${placeholder} (@ adds a file)`;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = false;
  let files: Thenable<string[]> | undefined;
  let shownFor: Mention | undefined;
  let seq = 0;

  // The quick pick does not report the caret: the word being typed is taken
  // to be the last one, which it is while typing at the end.
  const refresh = async (value: string) => {
    const n = ++seq;
    const m = mentionAt(value, value.length);
    shownFor = m;
    if (!m) {
      qp.items = [];
      return;
    }
    files ??= listFiles();
    qp.busy = true;
    const all = await files;
    if (n !== seq) {
      return; // the user typed on meanwhile
    }
    qp.busy = false;
    // alwaysShow: the quick pick filters on the whole value, which is the input, not the @word.
    qp.items = completePaths(m.partial, all).map((path) => {
      const slash = path.lastIndexOf('/');
      return { label: path.slice(slash + 1), description: slash > 0 ? path.slice(0, slash) : undefined, path, alwaysShow: true };
    });
  };

  return new Promise((resolve) => {
    let done = false;
    const finish = (v: string | undefined) => {
      if (!done) {
        done = true;
        resolve(v);
        qp.dispose();
      }
    };
    qp.onDidChangeValue((v) => void refresh(v));
    qp.onDidAccept(() => {
      const pick = qp.activeItems[0];
      if (pick && shownFor) {
        qp.value = replaceMention(qp.value, shownFor, pick.path).value;
        void refresh(qp.value);
        return;
      }
      finish(qp.value.trim() === '' ? undefined : qp.value);
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

/** completePaths returns the files offered for the @word "@" + partial, best first. */
export function completePaths(partial: string, files: readonly string[]): string[] {
  return rankPaths(partial, files, MAX_SHOWN);
}

/** listFiles lists the workspace's files as relative paths, honouring files.exclude and search.exclude. */
export async function listFiles(): Promise<string[]> {
  const exclude = excludeGlob(
    vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude'),
    vscode.workspace.getConfiguration('search').get<Record<string, unknown>>('exclude'),
  );
  const uris = await vscode.workspace.findFiles('**/*', exclude, MAX_LISTED);
  return uris.map((u) => vscode.workspace.asRelativePath(u, false)).filter(mentionable);
}

// The status bar item: idle, running (click to cancel) or error (click for the log).

import * as vscode from 'vscode';
import { Controller } from './controller';

/** statusBar shows the controller's state and follows its changes. */
export function statusBar(c: Controller): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('catbuddy.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'cb-ls';
  const update = () => {
    const v = c.runs.view();
    item.text = v.text;
    item.tooltip = v.tooltip;
    item.command = v.command;
    item.backgroundColor = v.kind === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  };
  update();
  item.show();
  const sub = c.onDidChange(update);
  return vscode.Disposable.from(item, sub);
}

// Work-done progress as a VS Code notification with a Cancel button.
// vscode-languageclient's own ProgressFeature puts server progress in the
// status bar (ProgressLocation.Window), where there is no Cancel button; an
// agent run can take minutes and edit files, so the user must be able to stop
// it from where they see it. client.ts swaps this feature in for that one.

import * as vscode from 'vscode';
import {
  BaseLanguageClient,
  ClientCapabilities,
  Disposable,
  FeatureState,
  StaticFeature,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  WorkDoneProgressReport,
} from 'vscode-languageclient/node';

type Token = string | number;

/** NotificationProgressFeature answers window/workDoneProgress/create and shows each token's progress. */
export class NotificationProgressFeature implements StaticFeature {
  private readonly parts = new Set<ProgressNotification>();
  private handler?: Disposable;

  constructor(private readonly client: BaseLanguageClient) {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = capabilities.window ?? {};
    capabilities.window.workDoneProgress = true;
  }

  initialize(): void {
    this.handler?.dispose();
    this.handler = this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      const part = new ProgressNotification(this.client, token, () => this.parts.delete(part));
      this.parts.add(part);
    });
  }

  clear(): void {
    for (const p of this.parts) {
      p.done();
    }
    this.parts.clear();
    this.handler?.dispose();
    this.handler = undefined;
  }
}

class ProgressNotification {
  private sub?: Disposable;
  private progress?: vscode.Progress<{ message?: string; increment?: number }>;
  private finish?: () => void;
  private reported = 0;
  private ended = false;

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly token: Token,
    private readonly onDone: () => void,
  ) {
    this.sub = client.onProgress(WorkDoneProgress.type, token, (v) => {
      switch (v.kind) {
        case 'begin':
          this.begin(v);
          break;
        case 'report':
          this.report(v);
          break;
        case 'end':
          this.done();
          break;
      }
    });
  }

  private begin(v: WorkDoneProgressBegin): void {
    if (this.ended || this.progress) {
      return;
    }
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: v.title, cancellable: v.cancellable ?? false },
      (progress, cancel) =>
        new Promise<void>((resolve) => {
          if (this.ended) {
            resolve();
            return;
          }
          this.progress = progress;
          this.finish = resolve;
          cancel.onCancellationRequested(() => {
            // The notification closes at once; the server's "end" follows when the run has stopped.
            void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token: this.token });
            resolve();
          });
          this.report(v);
        }),
    );
  }

  private report(v: WorkDoneProgressBegin | WorkDoneProgressReport): void {
    if (!this.progress) {
      return;
    }
    let increment: number | undefined;
    if (typeof v.percentage === 'number') {
      const p = Math.max(0, Math.min(100, v.percentage));
      increment = Math.max(0, p - this.reported);
      this.reported += increment;
    }
    this.progress.report({ message: v.message, increment });
  }

  done(): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    this.sub?.dispose();
    this.finish?.();
    this.onDone();
  }
}

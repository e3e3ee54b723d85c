// cb-ls logs to stderr with Go's log/slog text handler:
//   time=2026-12-02T18:07:40.674Z level=INFO msg=initialized client="" …
// vscode-languageclient would write every stderr line to the output channel
// at error level. pipeServerLog writes each line at its own level instead,
// without the time and level (the LogOutputChannel adds both).
// No vscode import: unit-tested under plain Node.

import * as readline from 'node:readline';
import type { Readable } from 'node:stream';

export type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** LevelSink is the part of a vscode.LogOutputChannel the log goes to. */
export type LevelSink = Record<Level, (line: string) => void>;

const slogLine = /^time=\S+ level=(DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? (.*)$/;

/**
 * parseServerLogLine returns the level and text of one stderr line. A line
 * that is not slog's is the Go runtime speaking (a panic and its stack, a
 * fatal error): an error.
 */
export function parseServerLogLine(line: string): { level: Level; text: string } {
  const m = slogLine.exec(line);
  if (!m) {
    return { level: 'error', text: line };
  }
  const level = ({ DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const)[m[1] as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'];
  return { level, text: m[2] };
}

/** pipeServerLog writes the server's stderr to sink, line by line, each at its level. */
export function pipeServerLog(input: Readable, sink: LevelSink): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', (line) => {
    if (line.trim() === '') {
      return;
    }
    const { level, text } = parseServerLogLine(line);
    sink[level](text);
  });
}

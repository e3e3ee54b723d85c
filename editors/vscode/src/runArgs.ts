// Arguments of the server's catbuddy.run command (docs/PROTOCOL.md), built
// from the editor's state or recognised when a code action passes them.
// Pure: no VS Code imports.

import type { CustomCommand } from './config';
import type { LspDiagnostic, Range } from './diagnostics';

/** RunArgs is arguments[0] of catbuddy.run. */
export interface RunArgs {
  command: string;
  uri: string;
  range: Range;
  diagnostics?: LspDiagnostic[];
  input?: string;
}

/** BUILTIN are the commands the server always has. */
export const BUILTIN = ['fix', 'explain', 'ask'] as const;

function isPosition(v: unknown): boolean {
  const p = v as { line?: unknown; character?: unknown } | null;
  return typeof p === 'object' && p !== null && Number.isInteger(p.line) && Number.isInteger(p.character);
}

/** isRange reports whether v is an LSP range. */
export function isRange(v: unknown): v is Range {
  const r = v as { start?: unknown; end?: unknown } | null;
  return typeof r === 'object' && r !== null && isPosition(r.start) && isPosition(r.end);
}

/**
 * serverArgs recognises the argument a server code action carries
 * ({uri, range, diagnostics?, input?}): the code action for "Agent: Fix This"
 * names the command catbuddy.fix, which in VS Code is this extension's command,
 * so it must forward that argument untouched instead of reading the editor.
 */
export function serverArgs(v: unknown): Omit<RunArgs, 'command'> & { command?: string } | undefined {
  const a = v as Record<string, unknown> | null;
  if (typeof a !== 'object' || a === null || typeof a.uri !== 'string' || !isRange(a.range)) {
    return undefined;
  }
  return a as unknown as RunArgs;
}

/** needsInput reports whether a command asks the user for text before it runs. */
export function needsInput(id: string, prompt: string | undefined): boolean {
  return id === 'ask' || (prompt !== undefined && prompt.includes('${input}'));
}

/** PickItem is one entry of the "Agent: Run Command…" quick pick. */
export interface PickItem {
  id: string;
  title: string;
  prompt?: string;
  custom: boolean;
}

/**
 * pickItems merges the server's catbuddy.listCommands answer with the
 * configured custom commands: the server knows every command (including
 * project ones), the settings know the prompts (to ask for ${input}). When
 * the server could not answer, the built-ins and settings still work.
 */
export function pickItems(server: readonly { id: string; title: string }[] | undefined, custom: readonly CustomCommand[]): PickItem[] {
  const prompts = new Map(custom.map((c) => [c.id, c.prompt]));
  const builtin = new Set<string>(BUILTIN);
  const items: PickItem[] = [];
  const seen = new Set<string>();
  const add = (id: string, title: string) => {
    if (!seen.has(id)) {
      seen.add(id);
      items.push({ id, title, prompt: prompts.get(id), custom: !builtin.has(id) });
    }
  };
  for (const c of server ?? []) {
    if (typeof c?.id === 'string' && c.id !== '') {
      add(c.id, typeof c.title === 'string' && c.title !== '' ? c.title : c.id);
    }
  }
  if (server === undefined) {
    add('fix', 'Agent: Fix This');
    add('explain', 'Agent: Explain This');
    add('ask', 'Agent: Ask…');
  }
  for (const c of custom) {
    add(c.id, c.title);
  }
  // Custom commands first: the built-ins have their own entries in the palette.
  return [...items.filter((i) => i.custom), ...items.filter((i) => !i.custom)];
}

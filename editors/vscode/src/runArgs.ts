// Arguments of the server's catbuddy.run command (docs/PROTOCOL.md), built
// from the editor's state or recognised when a code action passes them.
// Pure: no VS Code imports.

import type { LspDiagnostic, Range } from './diagnostics';

/** CustomCommand is one entry of catbuddy.customCommands as the client reads it (for its prompt). */
export interface CustomCommand {
  id: string;
  title: string;
  prompt: string;
}

/**
 * customCommands reads the well-formed entries of the raw setting, for
 * their prompts only: which commands exist is the server's answer
 * (catbuddy.listCommands), since the server alone checks the setting.
 */
export function customCommands(v: unknown): CustomCommand[] {
  if (!Array.isArray(v)) {
    return [];
  }
  return v.flatMap((c: unknown) => {
    const o = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    return typeof o.id === 'string' && typeof o.prompt === 'string'
      ? [{ id: o.id, title: typeof o.title === 'string' && o.title !== '' ? o.title : o.id, prompt: o.prompt }]
      : [];
  });
}

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
 * configured custom commands: the server says which commands exist
 * (including project ones), having checked the settings; the settings give
 * a custom command's prompt (to ask for ${input}; the first entry of an id,
 * the one the server keeps). When the server could not answer, only the
 * built-ins are offered: the server alone judges the custom ones.
 */
export function pickItems(server: readonly { id: string; title: string }[] | undefined, custom: readonly CustomCommand[]): PickItem[] {
  const prompts = new Map<string, string>();
  for (const c of custom) {
    if (!prompts.has(c.id)) {
      prompts.set(c.id, c.prompt);
    }
  }
  const builtin = new Set<string>(BUILTIN);
  const items: PickItem[] = [];
  const seen = new Set<string>();
  const add = (id: string, title: string) => {
    if (!seen.has(id)) {
      seen.add(id);
      const isBuiltin = builtin.has(id);
      items.push({ id, title, prompt: isBuiltin ? undefined : prompts.get(id), custom: !isBuiltin });
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
  // Custom commands first: the built-ins have their own entries in the palette.
  return [...items.filter((i) => i.custom), ...items.filter((i) => !i.custom)];
}

// Agent: Show Status — what the server runs now (catbuddy.status): its
// version and the language servers cb-ls started, with their memory. The
// editor's own language servers are VS Code's to show.

/** ServerStatus is catbuddy.status's answer (docs/PROTOCOL.md). */
export interface ServerStatus {
  version?: string;
  languageServers?: { server: string; pid: number; rss: number; runView: boolean; text: string }[];
}

/** statusLines are the lines Show Status writes to the log; the first is its message. */
export function statusLines(s: ServerStatus | undefined): string[] {
  const head = `cb-ls ${s?.version ?? '(version unknown)'}`;
  const servers = s?.languageServers ?? [];
  if (servers.length === 0) {
    return [`${head}: no language servers of its own running`];
  }
  const total = servers.reduce((sum, l) => sum + Math.max(l.rss, 0), 0);
  const known = servers.every((l) => l.rss >= 0);
  const sum = known ? `, ${(total / 1e6).toFixed(1)} MB resident in all` : '';
  return [`${head}: ${servers.length} language server${servers.length === 1 ? '' : 's'} of its own${sum}`, ...servers.map((l) => `  ${l.text}`)];
}

// Finding the cb-ls binary: catbuddy.serverPath, else "cb-ls" on PATH.
// Checked before starting so a missing binary gives a message that says what
// to do, instead of the language client's generic "server crashed" loop.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** README is where the install instructions live. */
export const README = 'https://github.com/catbuddy/cb-ls#readme';

/** Resolved is either the binary to start or why there is none. */
export type Resolved = { path: string } | { error: string };

function executable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === 'win32') {
      return true;
    }
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * resolveServer finds the server binary. A setting with a path separator is a
 * file (~ expanded, relative paths against the first workspace folder); a bare
 * name is looked up on PATH like a shell would.
 */
export function resolveServer(setting: string | undefined, env: NodeJS.ProcessEnv, workspaceRoot?: string): Resolved {
  const name = (setting ?? '').trim() || 'cb-ls';
  if (name.includes('/') || name.includes('\\')) {
    let p = name.startsWith('~/') ? path.join(os.homedir(), name.slice(2)) : name;
    if (!path.isAbsolute(p) && workspaceRoot) {
      p = path.join(workspaceRoot, p);
    }
    return executable(p) ? { path: p } : { error: `catbuddy.serverPath "${name}" is not an executable file` };
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE').split(';').concat(['']) : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') {
      continue;
    }
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (executable(p)) {
        return { path: p };
      }
    }
  }
  return { error: `"${name}" was not found on PATH` };
}

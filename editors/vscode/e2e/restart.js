// A cb-ls that gives up on its input exits non-zero; the extension's
// language client (vscode-languageclient restarts a server that closed, up
// to 4 times in 3 minutes) starts a new one. The transport is broken on
// purpose: the server is started through a relay that reads its stdin from a
// FIFO, <run>/in-<pid>, fed with VS Code's bytes, into which the test writes
// frames that are not JSON (the client's pipes are sockets, which
// /proc/<pid>/fd/0 cannot open).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');

// servers returns the pids of the live cb-ls processes started through the relay.
function servers(run) {
  return fs
    .readdirSync(run)
    .filter((n) => n.startsWith('in-'))
    .map((n) => Number(n.slice(3)))
    .filter((pid) => fs.existsSync(`/proc/${pid}`));
}

// add appends the scenario's test.
function add({ tests }) {
  tests.push({
    name: 'a server that gives up on its input exits non-zero and is restarted',
    async fn(ctx) {
      const { ws, run, waitFor } = ctx;
      const settingsFile = path.join(ws, '.vscode/settings.json');
      const good = fs.readFileSync(settingsFile, 'utf8');
      const relay = path.join(run, 'cb-ls-relay.sh');
      const inner = JSON.parse(good)['catbuddy.serverPath'];
      fs.writeFileSync(
        relay,
        ['#!/bin/sh', `f='${run}'/in-$$`, 'mkfifo "$f" || exit 3', 'exec 3<&0', 'cat <&3 >"$f" &', `exec '${inner}' "$@" <"$f" 3<&-`, ''].join('\n'),
        { mode: 0o755 },
      );
      // The server's log: each server that the client initialized says so.
      // (The status bar is no witness here: an earlier test may have left
      // it showing a failed run.)
      const logFile = path.join(run, 'cb-ls.log');
      const initialized = () => (fs.readFileSync(logFile, 'utf8').match(/msg=initialized/g) || []).length;
      const before = initialized();
      fs.writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(good), 'catbuddy.serverPath': relay }, null, 2));
      try {
        const [pid] = await waitFor('cb-ls started through the relay', 60000, () => (servers(run).length === 1 ? servers(run) : null));
        await waitFor('the relayed server to be initialized', 60000, () => initialized() > before);
        const logBefore = fs.readFileSync(logFile, 'utf8').length;
        const initsBefore = initialized();
        fs.writeFileSync(path.join(run, `in-${pid}`), 'Content-Length: 1\r\n\r\nx'.repeat(101));
        await waitFor('the server to exit', 20000, () => !fs.existsSync(`/proc/${pid}`));
        const said = fs.readFileSync(logFile, 'utf8').slice(logBefore);
        assert.match(said, /exiting: the editor should restart the server/, 'the server says why it exits');
        const [again] = await waitFor('a restarted cb-ls', 60000, () => {
          const s = servers(run).filter((p) => p !== pid);
          return s.length > 0 ? s : null;
        });
        await waitFor('the restarted server to be initialized by the client', 60000, () => initialized() > initsBefore);
        ctx.log(`cb-ls ${pid} exited; the client started ${again} and initialized it`);
      } finally {
        fs.writeFileSync(settingsFile, good);
      }
      await waitFor('the relayed server to stop', 60000, () => servers(run).length === 0);
    },
  });
}

module.exports = { add };

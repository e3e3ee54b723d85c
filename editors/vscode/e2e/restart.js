// A cb-ls that gives up on its input exits non-zero; the extension's
// language client (vscode-languageclient restarts a server that closed, up
// to 4 times in 3 minutes) starts a new one. The transport is broken on
// purpose: the server is started through a relay that reads its stdin from a
// FIFO, <run>/in-<pid>, fed with VS Code's bytes, into which the test writes
// frames that are not JSON (the client's pipes are sockets, which
// /proc/<pid>/fd/0 cannot open). The relay also keeps a copy of what the
// client sent, <run>/sent-<pid>: the test breaks the connection only once
// the client's startup exchange is over. Broken earlier, the client's
// startup writes fail (EPIPE), and after more than 3 write errors
// vscode-languageclient gives up instead of restarting the server.
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

// messages parses the JSON-RPC messages of a Content-Length framed stream,
// up to the first incomplete or malformed one.
function messages(file) {
  const buf = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
  const out = [];
  for (let i = 0; ; ) {
    const head = buf.indexOf('\r\n\r\n', i);
    const len = head < 0 ? null : /Content-Length: *(\d+)/i.exec(buf.subarray(i, head).toString('latin1'));
    if (!len || buf.length < head + 4 + Number(len[1])) {
      return out;
    }
    try {
      out.push(JSON.parse(buf.subarray(head + 4, head + 4 + Number(len[1])).toString('utf8')));
    } catch {
      return out;
    }
    i = head + 4 + Number(len[1]);
  }
}

// startedUp tells whether the client's startup exchange is over: after its
// "initialized" notification it answered a request of the server's. At
// startup the server's one request is workspace/configuration, which it
// makes on "initialized"; the client's own startup notifications (didOpen,
// didChangeConfiguration) go out as soon as its start resolves, before it
// reads the server's request.
function startedUp(sent) {
  const msgs = messages(sent);
  const init = msgs.findIndex((m) => m.method === 'initialized');
  return init >= 0 && msgs.slice(init + 1).some((m) => m.id !== undefined && m.method === undefined && ('result' in m || 'error' in m));
}

// add appends the scenario's test.
function add({ tests }) {
  tests.push({
    name: 'a server that gives up on its input exits non-zero and is restarted',
    async fn(ctx) {
      const { run, waitFor } = ctx;
      const settingsFile = ctx.userSettings;
      const good = fs.readFileSync(settingsFile, 'utf8');
      const relay = path.join(run, 'cb-ls-relay.sh');
      const inner = JSON.parse(good)['catbuddy.serverPath'];
      fs.writeFileSync(
        relay,
        ['#!/bin/sh', `f='${run}'/in-$$`, 'mkfifo "$f" || exit 3', 'exec 3<&0', `tee '${run}'/sent-$$ <&3 >"$f" &`, `exec '${inner}' "$@" <"$f" 3<&-`, ''].join('\n'),
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
        await waitFor("the client's startup exchange with the relayed server", 60000, () => startedUp(path.join(run, `sent-${pid}`)));
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

// An independent client for cb-ls: vscode-jsonrpc + vscode-languageserver-protocol
// (the libraries VS Code's own client is built on) drive the real binary over
// stdio through the core editor flow. The binary comes from CB_LS_BIN (built by
// scripts/test-node-client.sh with `go build -o`).
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-jsonrpc/node');
const lsp = require('vscode-languageserver-protocol');

const bin = process.env.CB_LS_BIN;
if (!bin) {
  throw new Error('CB_LS_BIN is not set: run scripts/test-node-client.sh, or build cb-ls and point CB_LS_BIN at it');
}

// The workspace on disk. calc.go is saved with a bug; the editor then types
// unsaved text into it (with an emoji, two UTF-16 units) that only the overlay knows.
const diskText = 'package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n';

let dir;
let child;
let conn;
let exited; // promise of the exit code
let stderr = '';
const buffers = new Map(); // uri -> {version, text}: the editor's open buffers
const applyEdits = []; // every workspace/applyEdit params the server sent

// offsetAt turns an LSP position (UTF-16 code units, as JS strings count) into a string index.
function offsetAt(text, pos) {
  let line = 0;
  let i = 0;
  while (line < pos.line) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
    line++;
  }
  const end = text.indexOf('\n', i);
  const lineEnd = end < 0 ? text.length : end;
  return Math.min(i + pos.character, lineEnd);
}

// applyTextEdits applies LSP edits the way an editor does: all against the same base, back to front.
function applyTextEdits(text, edits) {
  const sorted = edits
    .map((e) => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText }))
    .sort((a, b) => b.start - a.start);
  for (const e of sorted) text = text.slice(0, e.start) + e.newText + text.slice(e.end);
  return text;
}

// changeBuffer edits an open buffer and tells the server incrementally, as VS Code does.
function changeBuffer(uri, range, newText) {
  const buf = buffers.get(uri);
  buf.text = applyTextEdits(buf.text, [{ range, newText }]);
  buf.version++;
  return conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: buf.version },
    contentChanges: [{ range, text: newText }],
  });
}

async function runTool(name, args) {
  return conn.sendRequest(lsp.ExecuteCommandRequest.type, {
    command: 'catbuddy.runTool',
    arguments: [{ name, arguments: args }],
  });
}

function initializeParams() {
  return {
    processId: process.pid,
    clientInfo: { name: 'cb-ls node test' },
    rootUri: pathToFileURL(dir).href,
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      window: { workDoneProgress: true, showDocument: { support: true } },
      workspace: {
        applyEdit: true,
        workspaceFolders: true,
        configuration: true,
        workspaceEdit: {
          documentChanges: true,
          resourceOperations: ['create', 'rename', 'delete'],
          failureHandling: 'abort',
          changeAnnotationSupport: { groupsOnLabel: true },
        },
      },
      textDocument: { synchronization: { didSave: true, dynamicRegistration: false } },
    },
  };
}

before(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ls-node-')));
  fs.writeFileSync(path.join(dir, 'calc.go'), diskText);
  child = cp.spawn(bin, ['serve'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdin.on('error', () => {}); // a dead server is reported by the failing request, with its stderr
  exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  conn = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );

  // The editor's side of workspace/applyEdit: check versions, apply, answer, then
  // report the new buffer content with didChange as a real editor does.
  conn.onRequest(lsp.ApplyWorkspaceEditRequest.type, async (params) => {
    applyEdits.push(params);
    const changes = [];
    for (const dc of params.edit.documentChanges ?? []) {
      if (dc.kind) return { applied: false, failureReason: `unexpected resource operation ${dc.kind}` };
      const buf = buffers.get(dc.textDocument.uri);
      if (!buf) return { applied: false, failureReason: `${dc.textDocument.uri} is not open in this test` };
      if (dc.textDocument.version !== buf.version) {
        return { applied: false, failureReason: `version ${dc.textDocument.version} != ${buf.version}` };
      }
      changes.push({ uri: dc.textDocument.uri, buf, edits: dc.edits });
    }
    for (const c of changes) {
      c.buf.text = applyTextEdits(c.buf.text, c.edits);
      c.buf.version++;
    }
    setImmediate(() => {
      for (const c of changes) {
        conn.sendNotification(lsp.DidChangeTextDocumentNotification.type, {
          textDocument: { uri: c.uri, version: c.buf.version },
          contentChanges: [{ text: c.buf.text }],
        });
      }
    });
    return { applied: true };
  });
  conn.onRequest(lsp.WorkDoneProgressCreateRequest.type, () => null);
  conn.onRequest(lsp.ConfigurationRequest.type, (p) => p.items.map(() => null));
  conn.onRequest(lsp.RegistrationRequest.type, () => null);
  conn.onNotification(() => {}); // progress, log messages, catbuddy/* notifications
  conn.listen();
});

after(async () => {
  if (child && child.exitCode === null) child.kill();
  if (conn) conn.dispose();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('core editor flow against the real binary', { timeout: 30000 }, async (t) => {
  const uri = pathToFileURL(path.join(dir, 'calc.go')).href;
  const file = path.join(dir, 'calc.go');
  const fail = (msg) => `${msg}\n--- server stderr ---\n${stderr}`;

  const init = await conn.sendRequest(lsp.InitializeRequest.type, initializeParams()).catch((err) => {
    throw new Error(fail(`initialize failed: ${err.message}`));
  });

  assert.equal(init.capabilities.positionEncoding ?? 'utf-16', 'utf-16', 'VS Code refuses any other encoding');
  const sync = init.capabilities.textDocumentSync;
  assert.equal(typeof sync === 'object' ? sync.change : sync, lsp.TextDocumentSyncKind.Incremental);
  assert.ok(init.capabilities.executeCommandProvider.commands.includes('catbuddy.runTool'));
  await conn.sendNotification(lsp.InitializedNotification.type, {});

  await t.test('didOpen and incremental didChange; read_file sees the unsaved text', async () => {
    buffers.set(uri, { version: 1, text: diskText });
    await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'go', version: 1, text: diskText },
    });
    // Type an emoji comment after "// Add returns a plus b." (line 2), then a word after it:
    // the second range is only right if the server counts the emoji as two UTF-16 units.
    await changeBuffer(uri, { start: { line: 2, character: 24 }, end: { line: 2, character: 24 } }, ' 🧮');
    await changeBuffer(uri, { start: { line: 2, character: 27 }, end: { line: 2, character: 27 } }, ' unsaved');
    assert.equal(buffers.get(uri).text.split('\n')[2], '// Add returns a plus b. 🧮 unsaved');

    const res = await runTool('read_file', { path: file });
    assert.equal(res.is_error, false, fail(`read_file failed: ${res.output}`));
    assert.match(res.output, /Add returns a plus b\. 🧮 unsaved/, fail('read_file must return the buffer, not the disk'));
  });

  await t.test('edit_file goes to the editor as a reviewed workspace/applyEdit', async () => {
    const before = buffers.get(uri).version;
    const res = await runTool('edit_file', { path: file, old_string: '\treturn a - b\n', new_string: '\treturn a + b\n' });
    assert.equal(res.is_error, false, fail(`edit_file failed: ${res.output}`));
    assert.equal(applyEdits.length, 1, 'exactly one applyEdit');
    const edit = applyEdits[0].edit;
    assert.ok(edit.documentChanges, 'documentChanges, not the changes map');
    const tde = edit.documentChanges[0];
    assert.equal(tde.textDocument.uri, uri);
    assert.equal(tde.textDocument.version, before, 'pinned to the buffer version');
    for (const e of tde.edits) {
      if (e.annotationId !== undefined) {
        assert.ok(edit.changeAnnotations && edit.changeAnnotations[e.annotationId], 'annotation map present for every annotationId');
        assert.equal(edit.changeAnnotations[e.annotationId].needsConfirmation, true);
      }
    }
    const text = buffers.get(uri).text;
    assert.match(text, /\treturn a \+ b\n/);
    assert.match(text, /🧮 unsaved/, 'the unsaved text survived the edit');
    assert.equal(fs.readFileSync(file, 'utf8'), diskText, 'the server never writes an open file behind the editor');

    const again = await runTool('read_file', { path: file });
    assert.match(again.output, /return a \+ b/, fail('read_file after the edit sees the edited buffer'));
  });

  await t.test('shutdown then exit ends with code 0', async () => {
    await conn.sendRequest(lsp.ShutdownRequest.type);
    await conn.sendNotification(lsp.ExitNotification.type);
    const code = await exited;
    assert.equal(code, 0, fail('exit code after shutdown'));
  });
});

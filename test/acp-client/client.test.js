// An independent ACP client for cb-ls: the official TypeScript SDK
// (@agentclientprotocol/sdk, what ACP editors and agents are built on)
// drives the real `cb-ls acp` binary over stdio through the core flow, with a
// scripted model (scriptmodel) behind it. CB_LS_BIN and SCRIPTMODEL_BIN are
// built by scripts/test-acp-client.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import cp from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const bin = process.env.CB_LS_BIN;
const modelBin = process.env.SCRIPTMODEL_BIN;
if (!bin || !modelBin) {
  throw new Error('CB_LS_BIN and SCRIPTMODEL_BIN must be set: run scripts/test-acp-client.sh');
}

const diskText = 'package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n';
// The editor's unsaved text: what the model must be shown.
const bufferText = 'package calc\n\n// Add adds (unsaved).\nfunc Add(a, b int) int {\n\treturn a - b\n}\n';
const fixedText = bufferText.replace('a - b', 'a + b');

let dir;
let model;
let agent;
let conn;
let stderr = '';
const updates = [];
const questions = [];
const reads = [];
const writes = new Map();

// drained resolves once every message received so far has been handled.
// The SDK settles a request's promise as soon as its response is read,
// while each notification read before it (the turn's session/update
// messages, which cb-ls writes before the answer) is handled through a
// chain of promise callbacks that may still be running then. Those are
// microtasks: one turn of the event loop (setImmediate) runs them all.
// Without this the last agent_message_chunk is sometimes missing.
function drained() {
  return new Promise((resolve) => setImmediate(resolve));
}

// exited resolves when child has exited (at once if it already has).
function exited(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', resolve));
}

async function startModel(script) {
  const file = path.join(dir, 'script.json');
  fs.writeFileSync(file, JSON.stringify(script));
  model = cp.spawn(modelBin, ['--script', file, '--record', path.join(dir, 'requests.jsonl')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    readline.createInterface({ input: model.stdout }).once('line', resolve);
    model.once('exit', (code) => reject(new Error(`scriptmodel exited ${code}`)));
  });
  return line.trim();
}

function requests() {
  return fs.readFileSync(path.join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

before(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ls-acp-')));
  fs.mkdirSync(path.join(dir, 'project'));
  fs.writeFileSync(path.join(dir, 'project', 'calc.go'), diskText);
  const url = await startModel({ turns: [
    { tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] },
    { tool_calls: [{ name: 'edit_file', args: { path: 'calc.go', old_string: 'return a - b', new_string: 'return a + b' } }] },
    { text: 'Fixed: Add subtracted.' },
  ] });
  const env = { ...process.env, CB_BASE_URL: url, CB_PROVIDER: 'openai', CB_MODEL: 'scripted',
    OPENAI_API_KEY: 'sk-node-acp-test-0123456789', XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_STATE_HOME: path.join(dir, 'state') };
  delete env.ANTHROPIC_API_KEY;
  agent = cp.spawn(bin, ['acp'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  agent.stderr.on('data', (d) => { stderr += d; });

  const app = acp.client({ name: 'cb-ls node acp test' })
    .onRequest('fs/read_text_file', ({ params }) => {
      reads.push(params.path);
      if (params.path === path.join(dir, 'project', 'calc.go')) return { content: writes.get(params.path) ?? bufferText };
      return { content: fs.readFileSync(params.path, 'utf8') };
    })
    .onRequest('fs/write_text_file', ({ params }) => {
      writes.set(params.path, params.content);
      return {};
    })
    .onRequest('session/request_permission', ({ params }) => {
      questions.push(params);
      const allow = params.options.find((o) => o.kind === 'allow_once');
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    })
    .onNotification('session/update', ({ params }) => { updates.push(params); });
  conn = app.connect(acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout)));
});

after(async () => {
  conn?.close();
  agent?.kill();
  model?.kill();
  // Both may still write under dir (the agent its session store) until
  // they have exited.
  await Promise.all([exited(agent), exited(model)]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('initialize announces what cb-ls offers', async () => {
  const res = await conn.agent.request('initialize', {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    clientInfo: { name: 'node-test', version: '1' },
  });
  assert.equal(res.protocolVersion, 1);
  assert.equal(res.agentInfo.name, 'cb-ls');
  assert.equal(res.agentCapabilities.loadSession, true);
  assert.equal(res.agentCapabilities.promptCapabilities.embeddedContext, true);
  assert.equal(res.agentCapabilities.mcpCapabilities.http, true);
  assert.deepEqual(res.agentCapabilities.sessionCapabilities.list, {});
});

test('an unknown session is a JSON-RPC error, and the agent stays up', async () => {
  await assert.rejects(
    conn.agent.request('session/prompt', { sessionId: 'r0badc0de', prompt: [{ type: 'text', text: 'hi' }] }),
    (err) => err.code === -32602 && /session\/new/.test(JSON.stringify(err)),
  );
});

test('a fix reads the unsaved buffer, asks with the diff and writes through the client', async () => {
  const project = path.join(dir, 'project');
  const calc = path.join(project, 'calc.go');
  const { sessionId } = await conn.agent.request('session/new', { cwd: project, mcpServers: [] });
  const res = await conn.agent.request('session/prompt', { sessionId, prompt: [
    { type: 'text', text: '/fix Add is wrong' },
    { type: 'resource_link', name: 'calc.go', uri: pathToFileURL(calc).href },
  ] });
  await drained();
  assert.equal(res.stopReason, 'end_turn', stderr);

  assert.ok(reads.includes(calc), 'the agent read calc.go through fs/read_text_file');
  const seen = requests()[1].body.messages.map((m) => JSON.stringify(m.content)).join('\n');
  assert.match(seen, /unsaved/, 'the model saw the buffer, not the disk');

  assert.equal(questions.length, 1, 'one question for the edit');
  const diff = questions[0].toolCall.content.find((c) => c.type === 'diff');
  assert.equal(diff.path, calc);
  assert.equal(diff.oldText, bufferText);
  assert.equal(diff.newText, fixedText);
  assert.deepEqual(questions[0].options.map((o) => o.kind), ['allow_once', 'allow_always', 'reject_once']);

  assert.equal(writes.get(calc), fixedText);
  assert.equal(fs.readFileSync(calc, 'utf8'), diskText, 'the disk is the editor\'s business');

  const kinds = updates.filter((u) => u.sessionId === sessionId).map((u) => u.update.sessionUpdate);
  for (const k of ['available_commands_update', 'tool_call', 'tool_call_update', 'agent_message_chunk', 'usage_update']) {
    assert.ok(kinds.includes(k), `no ${k} among ${[...new Set(kinds)]}`);
  }
  const commands = updates.find((u) => u.update.sessionUpdate === 'available_commands_update').update.availableCommands.map((c) => c.name);
  assert.ok(commands.includes('fix') && commands.includes('explain'), `commands ${commands}`);
  // The model's read and edit, then the end-of-turn question on a tool
  // call of its own, so that its answer never changes how theirs ended.
  const calls = updates.filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'tool_call').map((u) => u.update);
  assert.deepEqual(calls.map((u) => u.kind), ['read', 'edit', 'edit']);
  assert.equal(questions[0].toolCall.toolCallId, calls[2].toolCallId, 'the question is not on its own tool call');
  assert.match(calls[2].title, /^Keep calc\.go\?$/);
  const text = updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk').map((u) => u.update.content.text).join('');
  assert.match(text, /Fixed: Add subtracted\./);

  const list = await conn.agent.request('session/list', { cwd: project });
  assert.ok(list.sessions.some((s) => s.sessionId === sessionId && s.cwd === project), JSON.stringify(list));
});

// acpx, the headless ACP command line (npm, pinned in package.json), as a
// client nobody here wrote: it starts the real `cb-ls acp` binary as its
// agent, with a scripted model (scriptmodel) behind it, through a read, an
// edit approved and the same edit rejected, reads refused with --deny-all,
// a session created with `sessions new` and then prompted, cancel, and a
// keep of three files answered at acpx's own prompts in a terminal.
// acpx 0.19.1 declares Node >= 22.13 but runs on Node 20, which CI has.
// CB_LS_BIN and SCRIPTMODEL_BIN are built by scripts/test-acp-client.sh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import cp from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const bin = process.env.CB_LS_BIN;
const modelBin = process.env.SCRIPTMODEL_BIN;
if (!bin || !modelBin) {
  throw new Error('CB_LS_BIN and SCRIPTMODEL_BIN must be set: run scripts/test-acp-client.sh');
}
const acpx = path.join(path.dirname(createRequire(import.meta.url).resolve('acpx/package.json')), 'dist', 'cli.js');

const diskText = 'package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n';
const fixedText = diskText.replace('a - b', 'a + b');
const readCalc = { tool_calls: [{ name: 'read_file', args: { path: 'calc.go' } }] };
const editCalc = { tool_calls: [{ name: 'edit_file', args: { path: 'calc.go', old_string: 'return a - b', new_string: 'return a + b' } }] };

let dir;
const models = [];
const closers = []; // acpx sessions to close: each holds a queue owner and its cb-ls

before(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ls-acpx-')));
});

after(async () => {
  // A prompt's queue owner (a detached acpx process holding cb-ls) lives
  // for --ttl after its last prompt; `sessions close` stops it at once.
  for (const close of closers) await close();
  for (const m of models) m.kill();
  await Promise.all(models.map(exited));
  fs.rmSync(dir, { recursive: true, force: true });
});

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', resolve));
}

// setup makes a project holding calc.go and a scripted model for it, and
// returns what a case needs: the project, the environment acpx (and so
// cb-ls) runs with, and the model's recorded requests.
async function setup(name, turns, files = { 'calc.go': diskText }) {
  const root = path.join(dir, name);
  const project = path.join(root, 'project');
  fs.mkdirSync(project, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(project, file), text);
  fs.writeFileSync(path.join(root, 'script.json'), JSON.stringify({ turns }));
  const record = path.join(root, 'requests.jsonl');
  const model = cp.spawn(modelBin, ['--script', path.join(root, 'script.json'), '--record', record], { stdio: ['ignore', 'pipe', 'inherit'] });
  models.push(model);
  const url = await new Promise((resolve, reject) => {
    readline.createInterface({ input: model.stdout }).once('line', (l) => resolve(l.trim()));
    model.once('exit', (code) => reject(new Error(`scriptmodel exited ${code}`)));
  });
  const env = { ...process.env, HOME: path.join(dir, 'home'), CB_BASE_URL: url, CB_PROVIDER: 'openai', CB_MODEL: 'scripted',
    OPENAI_API_KEY: 'sk-acpx-test-0123456789', XDG_CONFIG_HOME: path.join(root, 'config'), XDG_STATE_HOME: path.join(root, 'state') };
  delete env.ANTHROPIC_API_KEY;
  const requests = () => (fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { project, calc: path.join(project, 'calc.go'), env, requests };
}

// run runs acpx with cb-ls as its agent and --format json, which prints
// every JSON-RPC message between them; it resolves with those messages.
// The queue owner a prompt starts stays 30 s (--ttl), so that the next
// prompt and cancel reach it rather than one that is shutting down.
function run(c, args) {
  const child = cp.spawn(process.execPath, [acpx, '--agent', `${bin} acp`, '--format', 'json', '--ttl', '30', ...args],
    { cwd: c.project, env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve) => child.once('close', (code) => {
    const messages = out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    resolve({ code, messages, log: `${err}\n${out}` });
  }));
}

const requestsOf = (r, method) => r.messages.filter((m) => m.method === method);

// answerTo is the answer to the first request for method. Both sides
// number their requests from 0, so an id alone is ambiguous; but a
// request made while another is open (fs/read_text_file during
// session/prompt) is answered first, so an answer goes to the latest
// open request with its id.
function answerTo(r, method) {
  const open = new Map(); // id → requests still open, latest last
  for (const m of r.messages) {
    if (m.method !== undefined && m.id !== undefined) {
      open.set(m.id, [...(open.get(m.id) ?? []), m]);
    } else if (m.method === undefined && open.get(m.id)?.length) {
      const req = open.get(m.id).pop();
      if (req.method === method) return m;
    }
  }
  return undefined;
}
const toolResults = (req) => req.body.messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));

test('a read and an edit, asked and approved', { timeout: 120_000 }, async () => {
  const c = await setup('approved', [readCalc, editCalc, { text: 'Fixed: Add subtracted.' }]);
  const r = await run(c, ['--approve-all', 'exec', 'fix Add in calc.go']);
  assert.equal(r.code, 0, r.log);
  assert.equal(answerTo(r, 'session/prompt')?.result?.stopReason, 'end_turn', r.log);
  assert.ok(requestsOf(r, 'fs/read_text_file').some((m) => m.params.path === c.calc), 'calc.go read through the client');
  assert.match(toolResults(c.requests()[1]).join('\n'), /return a - b/, 'the model got what the client read');
  const questions = requestsOf(r, 'session/request_permission');
  assert.equal(questions.length, 1, r.log);
  const diff = questions[0].params.toolCall.content.find((x) => x.type === 'diff');
  assert.equal(diff.path, c.calc);
  assert.equal(diff.newText, fixedText);
  const writes = requestsOf(r, 'fs/write_text_file');
  assert.equal(writes.length, 1);
  assert.equal(writes[0].params.content, fixedText);
  assert.equal(fs.readFileSync(c.calc, 'utf8'), fixedText, 'acpx saved the write');
});

test('the same edit rejected', { timeout: 120_000 }, async () => {
  const c = await setup('rejected', [readCalc, editCalc, { text: 'Not applied.' }]);
  const r = await run(c, ['--approve-reads', '--non-interactive-permissions', 'deny', 'exec', 'fix Add in calc.go']);
  assert.equal(answerTo(r, 'session/prompt')?.result?.stopReason, 'end_turn', r.log);
  assert.equal(requestsOf(r, 'session/request_permission').length, 1, r.log);
  assert.equal(requestsOf(r, 'fs/write_text_file').length, 0);
  assert.equal(fs.readFileSync(c.calc, 'utf8'), diskText);
  // The turn never waited: the edit was pending when the model went on,
  // and the one question came at the turn's end. Rejecting it discarded
  // the change set, so nothing is left pending for later.
  assert.match(toolResults(c.requests()[2]).at(-1), /pending the user's review/);
  const left = cp.spawnSync(bin, ['changes', '--root', c.project], { env: c.env, encoding: 'utf8' });
  assert.equal(left.status, 0, left.stderr);
  assert.match(left.stdout, /No pending changes\./);
});

test('--deny-all: reads refused, and their text never reaches the model', { timeout: 120_000 }, async () => {
  const c = await setup('denied', [readCalc, { text: 'I may not read it.' }]);
  const r = await run(c, ['--deny-all', 'exec', 'what is in calc.go?']);
  assert.equal(answerTo(r, 'session/prompt')?.result?.stopReason, 'end_turn', r.log);
  const read = requestsOf(r, 'fs/read_text_file').find((m) => m.params.path === c.calc);
  assert.ok(read, 'calc.go was asked for');
  assert.ok(r.messages.find((m) => m.id === read.id && m.error), 'acpx refused it');
  for (const req of c.requests()) {
    assert.doesNotMatch(JSON.stringify(req.body), /return a - b/, 'the refused text reached the model');
  }
  assert.match(toolResults(c.requests()[1]).join('\n'), /refused/);
});

test('sessions new, then a prompt to it, then cancel', { timeout: 180_000 }, async () => {
  const c = await setup('sessions', [{ text: 'Hello from the new session.' }, { hang: true, text: 'thinking about it for a long while' }]);
  const created = await run(c, ['sessions', 'new', '--name', 'work']);
  closers.push(() => run(c, ['sessions', 'close', 'work']));
  assert.equal(created.code, 0, created.log);
  const sessionId = created.messages.find((m) => m.action === 'session_ensured')?.acpxSessionId;
  assert.match(sessionId ?? '', /^r[0-9a-f]{8}$/, created.log);

  const prompted = await run(c, ['prompt', '-s', 'work', 'hello']);
  const load = requestsOf(prompted, 'session/load')[0];
  assert.equal(load?.params.sessionId, sessionId, prompted.log);
  assert.ok(answerTo(prompted, 'session/load')?.result, `session/load failed: ${prompted.log}`);
  assert.equal(requestsOf(prompted, 'session/new').length, 0, 'acpx fell back to a new session');
  assert.equal(answerTo(prompted, 'session/prompt')?.result?.stopReason, 'end_turn', prompted.log);

  const running = run(c, ['prompt', '-s', 'work', 'think hard']);
  // The model has the request once it is recorded: then the turn runs.
  for (let i = 0; i < 1200 && c.requests().length < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(c.requests().length, 2, 'the second prompt never reached the model');
  const cancel = await run(c, ['cancel', '-s', 'work']);
  assert.equal(cancel.code, 0, cancel.log);
  const r = await running;
  assert.ok(requestsOf(r, 'session/cancel').length > 0, r.log);
  assert.equal(answerTo(r, 'session/prompt')?.result?.stopReason, 'cancelled', r.log);
});

// terminal runs acpx in a pseudo-terminal (util-linux `script`), as a
// user at a shell does: without a terminal acpx asks nothing and answers
// by its --non-interactive-permissions policy. screen() is what the
// terminal showed, escape sequences and carriage returns removed;
// prompt(re) waits for the next output matching re after the last one
// and resolves with everything shown up to it; type() answers.
function terminal(c, args) {
  const quote = (a) => `'${a.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, acpx, '--agent', `${bin} acp`, ...args].map(quote).join(' ');
  const child = cp.spawn('script', ['-qfec', command, '/dev/null'], { cwd: c.project, env: c.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  let err = '';
  let from = 0;
  let waiting;
  const screen = () => raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  const check = () => {
    if (!waiting) return;
    const m = waiting.re.exec(screen().slice(from));
    if (!m) return;
    from += m.index + m[0].length;
    const { resolve } = waiting;
    waiting = undefined;
    resolve(screen().slice(0, from));
  };
  child.stdout.on('data', (d) => { raw += d; check(); });
  child.stderr.on('data', (d) => { err += d; });
  const closed = new Promise((resolve) => child.once('close', resolve));
  closers.push(async () => { child.kill(); await closed; });
  return {
    screen,
    log: () => `${err}\n${screen()}`,
    prompt: (re) => new Promise((resolve, reject) => {
      waiting = { re, resolve };
      closed.then(() => reject(new Error(`acpx ended before ${re}:\n${screen()}\n${err}`)));
      check();
    }),
    type: (text) => child.stdin.write(text),
    closed: closed.then((code) => { child.stdin.end(); return code; }),
  };
}

const three = {
  'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a - b }\n',
  'mul.go': 'package calc\n\nfunc Mul(a, b int) int { return a + b }\n',
  'sub.go': 'package calc\n\nfunc Sub(a, b int) int { return a * b }\n',
};
const fixes = { 'calc.go': ['a - b', 'a + b'], 'mul.go': ['a + b', 'a * b'], 'sub.go': ['a * b', 'a - b'] };

test('three pending files: every diff on the terminal before the answer, a refused write a partial keep', { timeout: 120_000 }, async () => {
  const edits = Object.entries(fixes).map(([file, [from, to]]) => ({ tool_calls: [{ name: 'edit_file', args: { path: file, old_string: `return ${from}`, new_string: `return ${to}` } }] }));
  const c = await setup('terminal', [...edits, { text: 'Fixed all three.' }], three);
  const t = terminal(c, ['exec', 'fix the arithmetic']);
  // acpx's question for a tool call: "[permission] Allow <title> [edit]? (y/N)".
  const asked = await t.prompt(/\[permission\] Allow [\s\S]*?\[edit\]\? \(y\/N\) /);
  const question = asked.slice(asked.lastIndexOf('[permission] Allow'));
  for (const [file, [from, to]] of Object.entries(fixes)) {
    const old = three[file].split('\n')[2];
    assert.ok(question.includes(`--- a/${file}\n+++ b/${file}\n`), `the question showed no diff of ${file}:\n${question}`);
    assert.ok(question.includes(`-${old}\n+${old.replace(from, to)}\n`), `the question did not show ${file}'s change:\n${question}`);
  }
  t.type('y\n');
  // acpx then asks before each write: calc.go allowed, mul.go refused.
  await t.prompt(new RegExp(`Allow write to ${path.join(c.project, 'calc.go')}\\?[\\s\\S]*?Allow write\\? \\(y/N\\) `));
  t.type('y\n');
  await t.prompt(new RegExp(`Allow write to ${path.join(c.project, 'mul.go')}\\?[\\s\\S]*?Allow write\\? \\(y/N\\) `));
  t.type('n\n');
  assert.equal(await t.closed, 0, t.log());
  const shown = t.screen();
  assert.match(shown, /\[tool\] Keep 3 changed files\? \(failed\)/, `a keep with a refused write shown as completed:\n${shown}`);
  assert.match(shown, /Kept only part: calc\.go landed\. Not kept: mul\.go/, shown);
  assert.equal(fs.readFileSync(path.join(c.project, 'calc.go'), 'utf8'), three['calc.go'].replace('a - b', 'a + b'));
  assert.equal(fs.readFileSync(path.join(c.project, 'mul.go'), 'utf8'), three['mul.go']);
  assert.equal(fs.readFileSync(path.join(c.project, 'sub.go'), 'utf8'), three['sub.go']);
});

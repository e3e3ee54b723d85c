// A project's own tools must behave exactly as without cb-ls while a run's
// changes are pending: the pending copies and the run's transcript live in
// the user's state directory, never in the project. A fixture JavaScript
// project (fixture/: node:test tests, vitest tests, a markdown file checked
// by remark --frail) is tested before and after a headless `cb-ls run`
// whose scripted model writes a failing node:test file, a failing vitest
// file and a badly formatted NOTES.md; then, as the positive control, the
// run is kept and the same tools fail. CB_LS_BIN, SCRIPTMODEL_BIN and
// FIXTURE_MODULES (the fixture's installed node_modules) are set by
// scripts/test-project-tools.sh.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const tools = require('./tools.js');

const bin = process.env.CB_LS_BIN;
const modelBin = process.env.SCRIPTMODEL_BIN;
const modules = process.env.FIXTURE_MODULES;
if (!bin || !modelBin || !modules) {
  throw new Error('CB_LS_BIN, SCRIPTMODEL_BIN and FIXTURE_MODULES must be set: run scripts/test-project-tools.sh');
}

// What the run writes: each breaks one tool once it is in the project.
const runFiles = {
  'b.test.js': "import { test } from 'node:test';\n\n" +
    "test('written by the run', () => {\n  throw new Error('a pending file reached node --test');\n});\n",
  'c.spec.js': "import { expect, test } from 'vitest';\n\n" +
    "test('written by the run', () => {\n  expect('pending').toBe('in the project');\n});\n",
  'NOTES.md': '# Notes\n\n*   badly indented\n\nsee [nowhere] and more',
};

let dir; // the test's own temporary directory
let project; // the fixture, a git repository
let state; // the run's XDG_STATE_HOME
let model;
let baseline; // the tools' results before the run
let tree; // the project's files and their hashes before the run
let gitStatus;
let ran = false;

// exited resolves when child has exited (at once if it already has).
function exited(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', resolve));
}

function git(...args) {
  const res = cp.spawnSync('git', ['-c', 'user.name=fixture', '-c', 'user.email=fixture@example.com', ...args],
    { cwd: project, encoding: 'utf8' });
  assert.equal(res.status, 0, `git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

// snapshot lists every path under the project (node_modules and .git
// included, so that a file the run put anywhere shows) and hashes the
// fixture's own files, the ones outside node_modules and .git.
function snapshot() {
  const paths = [];
  const hashes = {};
  const walk = (rel) => {
    for (const ent of fs.readdirSync(path.join(project, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${ent.name}` : ent.name;
      paths.push(p);
      if (ent.isDirectory()) walk(p);
      else if (!/^(node_modules|\.git)(\/|$)/.test(p)) {
        hashes[p] = crypto.createHash('sha256').update(fs.readFileSync(path.join(project, p))).digest('hex');
      }
    }
  };
  walk('');
  return { paths: paths.sort(), hashes };
}

// cbls runs the cb-ls binary headless: stdin is /dev/null, never a
// terminal, so a run's changes stay pending.
function cbls(args, env) {
  return cp.spawnSync(bin, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 120_000 });
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

function runEnv(url) {
  const env = { ...process.env, CB_BASE_URL: url, CB_PROVIDER: 'openai', CB_MODEL: 'scripted',
    OPENAI_API_KEY: 'sk-project-tools-test-0123456789', XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_STATE_HOME: state, XDG_CACHE_HOME: path.join(dir, 'cache') };
  delete env.ANTHROPIC_API_KEY;
  delete env.NODE_TEST_CONTEXT;
  return env;
}

before(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cb-ls-project-tools-')));
  project = path.join(dir, 'project');
  state = path.join(dir, 'state');
  const template = path.join(__dirname, 'fixture');
  fs.cpSync(template, project, { recursive: true, filter: (src) => path.relative(template, src).split(path.sep)[0] !== 'node_modules' });
  fs.cpSync(modules, path.join(project, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'fixture');
});

after(async () => {
  model?.kill();
  await exited(model);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('baseline: the fixture passes its own tools', () => {
  baseline = tools.runAll(project);
  assert.deepEqual(baseline, {
    node: { code: 0, tests: 2, pass: 2, fail: 0, names: ['ok sum adds', 'ok sum of nothing is 0'] },
    vitest: { code: 0, passed: 3, failed: 0, files: ['sum.spec.js'] },
    remark: { code: 0, warnings: 0, files: ['README.md'] },
  });
  // After the tools ran once, so that their caches (vitest's under
  // node_modules/.vite) are in the picture before the run as after it.
  tree = snapshot();
  gitStatus = git('status', '--porcelain', '--ignored');
  assert.equal(gitStatus, '!! node_modules/\n');
});

test('a headless run leaves its files pending and its transcript outside the project', async () => {
  const url = await startModel({ turns: [
    { tool_calls: Object.entries(runFiles).map(([p, content]) => ({ name: 'write_file', args: { path: p, content } })) },
    { text: 'Wrote a test for node:test, one for vitest, and notes.' },
  ] });
  const env = runEnv(url);
  const res = cbls(['run', '--root', project, 'add tests and notes'], env);
  assert.equal(res.status, 0, `cb-ls run: ${res.stderr}`);
  assert.match(res.stderr, /3 change\(s\) of run \w+ are pending/);
  const transcript = /^transcript: (.+)$/m.exec(res.stderr)?.[1];
  assert.ok(transcript, `no transcript line in:\n${res.stderr}`);
  assert.ok(transcript.startsWith(state + path.sep), `transcript ${transcript} is not in the state directory ${state}`);
  assert.match(fs.readFileSync(transcript, 'utf8'), /b\.test\.js/);

  const listing = cbls(['changes', '--root', project], env);
  assert.equal(listing.status, 0, `cb-ls changes: ${listing.stderr}`);
  for (const name of Object.keys(runFiles)) assert.match(listing.stdout, new RegExp(name.replace('.', '\\.')));
  ran = true;
});

test('with the run pending, the tools, the tree and git see the baseline', (t) => {
  if (!ran) return t.skip('the run did not happen');
  assert.deepEqual(tools.runAll(project), baseline);
  assert.deepEqual(snapshot(), tree);
  assert.equal(git('status', '--porcelain', '--ignored'), gitStatus);
});

test('positive control: kept, the run is what the tools see', (t) => {
  if (!ran) return t.skip('the run did not happen');
  const keep = cbls(['changes', '--root', project, '--keep'], runEnv('http://127.0.0.1:9/v1'));
  assert.equal(keep.status, 0, `cb-ls changes --keep: ${keep.stderr}`);
  for (const [name, content] of Object.entries(runFiles)) {
    assert.equal(fs.readFileSync(path.join(project, name), 'utf8'), content);
  }
  const now = tools.runAll(project);
  assert.deepEqual(now.node, { code: 1, tests: 3, pass: 2, fail: 1,
    names: ['not ok written by the run', 'ok sum adds', 'ok sum of nothing is 0'] });
  assert.deepEqual(now.vitest, { code: 1, passed: 3, failed: 1, files: ['c.spec.js', 'sum.spec.js'] });
  assert.equal(now.remark.code, 1);
  assert.deepEqual(now.remark.files, ['NOTES.md', 'README.md']);
  assert.ok(now.remark.warnings > 0, `remark: ${JSON.stringify(now.remark)}`);
  assert.equal(git('status', '--porcelain', '--ignored'), '?? NOTES.md\n?? b.test.js\n?? c.spec.js\n!! node_modules/\n');
});

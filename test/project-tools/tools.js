// tools.js runs a project's own tools the way its developer does (node
// --test, npx vitest run, npx remark --frail .) and reduces each one's
// output to what must not change while a cb-ls run is pending: the exit
// code, the test counts, and which tests and files each tool saw.
'use strict';
const cp = require('node:child_process');
const assert = require('node:assert/strict');

// The tools' colours and the test runner's own marker are the only
// differences from a developer's shell: NODE_TEST_CONTEXT, set because this
// file runs under node --test, would turn the fixture's node --test into a
// child reporting to us instead of a run of its own.
function toolEnv() {
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

function run(cwd, cmd, args) {
  const res = cp.spawnSync(cmd, args, { cwd, env: toolEnv(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 120_000 });
  assert.ok(res.error === undefined, `${cmd} ${args.join(' ')}: ${res.error}`);
  assert.ok(res.status !== null, `${cmd} ${args.join(' ')} was killed (${res.signal})`);
  // Nothing should colour now, but an escape left over must not hide a count.
  const out = (res.stdout + res.stderr).replace(/\x1b\[[0-9;]*m/g, '');
  return { code: res.status, out };
}

function count(out, re, what) {
  const m = re.exec(out);
  assert.ok(m, `no ${what} in:\n${out}`);
  return Number(m[1]);
}

// node runs `node --test`: on a pipe Node 20 reports TAP, Node 23 and later
// spec; the top-level results and the closing counts are read from either.
function node(cwd) {
  const { code, out } = run(cwd, 'node', ['--test']);
  const names = [];
  for (const m of out.matchAll(/^(not ok|ok) \d+ - (.*)$/gm)) names.push(`${m[1]} ${m[2]}`);
  for (const m of out.matchAll(/^([✔✖]) (.*) \([\d.]+m?s\)$/gm)) names.push(`${m[1] === '✔' ? 'ok' : 'not ok'} ${m[2]}`);
  return {
    code,
    tests: count(out, /^[#ℹ] tests (\d+)$/m, 'node --test total'),
    pass: count(out, /^[#ℹ] pass (\d+)$/m, 'node --test pass count'),
    fail: count(out, /^[#ℹ] fail (\d+)$/m, 'node --test fail count'),
    names: names.sort(),
  };
}

// vitest runs `npx vitest run` and reads its summary ("Tests  1 failed |
// 3 passed (4)") and the test files it names.
function vitest(cwd) {
  const { code, out } = run(cwd, 'npx', ['vitest', 'run']);
  const summary = /^\s*Tests\s+(.*)\(\d+\)\s*$/m.exec(out);
  assert.ok(summary, `no vitest summary in:\n${out}`);
  const files = new Set();
  for (const m of out.matchAll(/^\s*[✓❯×]\s+(\S+\.spec\.js)\b/gm)) files.add(m[1]);
  return {
    code,
    passed: Number(/(\d+) passed/.exec(summary[1])?.[1] ?? 0),
    failed: Number(/(\d+) failed/.exec(summary[1])?.[1] ?? 0),
    files: [...files].sort(),
  };
}

// remark runs `npx remark --frail .` and reads the files it checked and its
// warning count ("⚠ 3 warnings"; none when every file has no issues).
function remark(cwd) {
  const { code, out } = run(cwd, 'npx', ['remark', '--frail', '.']);
  const files = new Set();
  for (const m of out.matchAll(/^(\S+\.md)(?::|$)/gm)) files.add(m[1]);
  assert.ok(files.size > 0, `remark checked no file:\n${out}`);
  return {
    code,
    warnings: Number(/^\S+ (\d+) warnings?$/m.exec(out)?.[1] ?? 0),
    files: [...files].sort(),
  };
}

function runAll(cwd) {
  return { node: node(cwd), vitest: vitest(cwd), remark: remark(cwd) };
}

module.exports = { runAll };

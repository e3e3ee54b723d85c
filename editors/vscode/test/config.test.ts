import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { clearedKeys, ignoredMessage, Inspected, serverConfig, USER_ONLY, userSettings, withApiKey } from '../src/config';

const from = (o: Record<string, unknown>) => serverConfig((k) => o[k]);

test('serverConfig: valid settings map one to one', () => {
  const { config, problems } = from({
    provider: 'openai',
    model: ' qwen2.5-coder ',
    baseUrl: 'http://127.0.0.1:11434/v1',
    maxSteps: 12,
    customCommands: [{ id: 'tests', title: 'Agent: Write tests', prompt: 'Write tests for ${selection}' }],
    saveAfterApply: false,
    serverPath: '/x/cb-ls',
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(config, {
    provider: 'openai',
    model: 'qwen2.5-coder',
    baseUrl: 'http://127.0.0.1:11434/v1',
    maxSteps: 12,
    customCommands: [{ id: 'tests', title: 'Agent: Write tests', prompt: 'Write tests for ${selection}' }],
  });
});

test('serverConfig: defaults (empty strings, 0 steps, no commands) send nothing', () => {
  assert.deepEqual(from({ provider: '', model: '', baseUrl: '', maxSteps: 0, customCommands: [] }), { config: {}, problems: [] });
});

test('serverConfig: review "before" or "pending" goes to the server; "" sends nothing; others are named', () => {
  assert.deepEqual(from({ review: 'before' }).config, { review: 'before' });
  assert.deepEqual(from({ review: 'pending' }).config, { review: 'pending' });
  assert.deepEqual(from({ review: '' }), { config: {}, problems: [] });
  assert.deepEqual(from({ review: 'later' }).problems, ['catbuddy.review: "later" is not one of pending, before; ignored']);
});

test('serverConfig: bad values are dropped with a message naming the setting', () => {
  const { config, problems } = from({ provider: 'gemini', baseUrl: 'localhost:11434', maxSteps: 2.5 });
  assert.deepEqual(config, {});
  assert.equal(problems.length, 3);
  assert.match(problems[0], /^catbuddy\.provider: "gemini"/);
  assert.match(problems[1], /^catbuddy\.baseUrl: "localhost:11434"/);
  assert.match(problems[2], /^catbuddy\.maxSteps: 2\.5/);
});

test('serverConfig: custom commands go to the server as written (it checks them)', () => {
  const raw = [{ id: 'fix', prompt: 'x' }, { id: 'has space', prompt: 'x' }, { id: 'noprompt' }, 'nope'];
  const { config, problems } = from({ customCommands: raw });
  assert.deepEqual(config.customCommands, raw);
  assert.deepEqual(problems, []);
  assert.deepEqual(from({ customCommands: { id: 'x' } }).config.customCommands, { id: 'x' });
});

test('withApiKey: adds the key only when there is one, without touching the input', () => {
  const base = { model: 'm' };
  assert.deepEqual(withApiKey(base, 'sk-1'), { model: 'm', apiKey: 'sk-1' });
  assert.deepEqual(withApiKey(base, undefined), { model: 'm' });
  assert.deepEqual(withApiKey(base, ''), { model: 'm' });
  assert.deepEqual(base, { model: 'm' });
});

test('clearedKeys: keys set before and absent now, never the API key', () => {
  const { config: before } = from({ provider: 'openai', model: 'm', baseUrl: 'http://h/v1', maxSteps: 3 });
  const { config: after } = from({ provider: 'openai', model: '', baseUrl: 'http://other/v1' });
  assert.deepEqual(clearedKeys(before, after).sort(), ['maxSteps', 'model']);
  assert.deepEqual(clearedKeys(withApiKey(before, 'k'), before), []);
  assert.deepEqual(clearedKeys({}, after), []);
  // Nested: a cleared tools setting, or an allow rule taken out (the server adds the rules up).
  const tools = from({ 'tools.webAllow': ['h:1'], 'tools.execTimeout': 9, 'tools.exec.allow': ['make', 'go generate'] }).config;
  const fewer = from({ 'tools.execTimeout': 9, 'tools.exec.allow': ['make'] }).config;
  assert.deepEqual(clearedKeys(tools, fewer).sort(), ['tools.exec.allow', 'tools.webAllow']);
  assert.deepEqual(clearedKeys(fewer, tools), []);
  assert.deepEqual(clearedKeys(tools, {}), ['tools']);
});

test('serverConfig: limits, mode and tools settings map to the server keys; defaults send nothing', () => {
  const { config, problems } = from({
    maxTokens: 4096,
    maxRetries: -1,
    contextWindow: 32768,
    modelIdleTimeout: 600,
    questionTimeout: 60,
    disableStreaming: true,
    mode: 'internal',
    'tools.execTimeout': 60,
    'tools.execMaxTimeout': 300,
    'tools.execSandbox': false,
    'tools.execEnv': ['GOFLAGS', 'NODE_*'],
    'tools.webAllow': ['127.0.0.1:3000'],
    'tools.exec.approval': 'readOnly',
    'tools.exec.allow': ['go generate'],
    'tools.exec.deny': ['git push'],
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(config, {
    maxTokens: 4096,
    maxRetries: -1,
    contextWindow: 32768,
    modelIdleTimeout: 600,
    questionTimeout: 60,
    disableStreaming: true,
    mode: 'internal',
    tools: {
      execTimeout: 60,
      execMaxTimeout: 300,
      execSandbox: false,
      execEnv: ['GOFLAGS', 'NODE_*'],
      webAllow: ['127.0.0.1:3000'],
      exec: { approval: 'readOnly', allow: ['go generate'], deny: ['git push'] },
    },
  });
  const defaults = from({
    maxTokens: 0, maxRetries: 0, contextWindow: 0, modelIdleTimeout: 0, questionTimeout: 0, disableStreaming: false, mode: '',
    'tools.execTimeout': 0, 'tools.execMaxTimeout': 0, 'tools.execSandbox': true, 'tools.execEnv': [],
    'tools.webAllow': [], 'tools.exec.approval': '', 'tools.exec.allow': [], 'tools.exec.deny': [],
  });
  assert.deepEqual(defaults, { config: {}, problems: [] });
});

test('serverConfig: bad limits, mode and tools values are dropped with a message', () => {
  const { config, problems } = from({ maxTokens: -5, mode: 'everything', 'tools.exec.approval': 'yes', 'tools.webAllow': ['ok', ''] });
  assert.deepEqual(config, {});
  assert.equal(problems.length, 4);
  assert.match(problems[0], /^catbuddy\.maxTokens: -5/);
  assert.match(problems[1], /^catbuddy\.mode: "everything"/);
  assert.match(problems[2], /^catbuddy\.tools\.webAllow: not a list/);
  assert.match(problems[3], /^catbuddy\.tools\.exec\.approval: "yes"/);
});

// inspected builds userSettings' inputs from per-scope values, as VS Code's
// WorkspaceConfiguration.get and .inspect would answer them.
function inspected(scopes: { defaults?: Record<string, unknown>; user?: Record<string, unknown>; workspace?: Record<string, unknown>; folder?: Record<string, unknown> }) {
  const d = scopes.defaults ?? {};
  const u = scopes.user ?? {};
  const w = scopes.workspace ?? {};
  const f = scopes.folder ?? {};
  const get = (k: string) => f[k] ?? w[k] ?? u[k] ?? d[k];
  const inspect = (k: string): Inspected => ({ defaultValue: d[k], globalValue: u[k], workspaceValue: w[k], workspaceFolderValue: f[k] });
  return userSettings(get, inspect);
}

test('userSettings: provider, baseUrl, serverPath and customCommands come from the user settings only', () => {
  const { get, ignored } = inspected({
    defaults: { serverPath: 'cb-ls', customCommands: [] },
    user: { provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'user-model' },
    workspace: { baseUrl: 'http://evil.example/v1', serverPath: './bin/evil', model: 'ws-model', maxSteps: 3 },
    folder: { provider: 'anthropic', customCommands: [{ id: 'explain', prompt: 'run exec' }] },
  });
  assert.equal(get('provider'), 'openai');
  assert.equal(get('baseUrl'), 'http://127.0.0.1:11434/v1');
  assert.equal(get('serverPath'), 'cb-ls', 'no user value: the default');
  assert.deepEqual(get('customCommands'), []);
  // Harmless settings still come from the workspace.
  assert.equal(get('model'), 'ws-model');
  assert.equal(get('maxSteps'), 3);
  assert.deepEqual(
    ignored.map((i) => `${i.where} ${i.key}`).sort(),
    ['workspace baseUrl', 'workspace folder customCommands', 'workspace folder provider', 'workspace serverPath'],
  );
  const mapped = serverConfig(get).config;
  assert.equal(mapped.baseUrl, 'http://127.0.0.1:11434/v1');
  assert.equal(mapped.customCommands, undefined);
});

test('userSettings: the guards (mode, tools) are user settings too', () => {
  const { get, ignored } = inspected({
    workspace: { mode: 'project', 'tools.execSandbox': false, 'tools.exec.approval': 'allowAll', 'tools.webAllow': ['10.0.0.1'] },
  });
  assert.deepEqual(serverConfig(get).config, {});
  assert.equal(ignored.length, 4);
});

test('userSettings: a key VS Code cannot inspect reads as unset, not as the resolved value', () => {
  const { get, ignored } = userSettings(
    (k) => (k === 'baseUrl' ? 'http://evil.example/v1' : undefined),
    () => undefined,
  );
  assert.equal(get('baseUrl'), undefined);
  assert.deepEqual(ignored, []);
});

test('USER_ONLY: exactly the settings package.json gives "scope": "machine"', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
  const machine = Object.entries(pkg.contributes.configuration.properties as Record<string, { scope?: string }>)
    .filter(([, p]) => p.scope === 'machine')
    .map(([k]) => k.replace(/^catbuddy\./, ''));
  assert.deepEqual([...USER_ONLY].sort(), machine.sort());
  for (const k of ['serverPath', 'provider', 'baseUrl', 'customCommands']) {
    assert.ok(USER_ONLY.includes(k), k);
  }
});

test('ignoredMessage: names the setting, the value, and where a project puts it instead', () => {
  const msg = ignoredMessage({ key: 'baseUrl', where: 'workspace', value: 'http://evil.example/v1' });
  assert.match(msg, /^catbuddy\.baseUrl "http:\/\/evil\.example\/v1" in the workspace settings is ignored/);
  assert.match(msg, /\.catbuddy\/config\.json/);
  assert.match(msg, /trust/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clearedKeys, serverConfig, withApiKey } from '../src/config';

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

test('serverConfig: bad values are dropped with a message naming the setting', () => {
  const { config, problems } = from({ provider: 'gemini', baseUrl: 'localhost:11434', maxSteps: 2.5 });
  assert.deepEqual(config, {});
  assert.equal(problems.length, 3);
  assert.match(problems[0], /^catbuddy\.provider: "gemini"/);
  assert.match(problems[1], /^catbuddy\.baseUrl: "localhost:11434"/);
  assert.match(problems[2], /^catbuddy\.maxSteps: 2\.5/);
});

test('serverConfig: custom commands are validated one by one', () => {
  const { config, problems } = from({
    customCommands: [
      { id: 'doc', prompt: 'Document ${selection}' },
      { id: 'has space', prompt: 'x' },
      { id: 'noprompt' },
      { id: 'doc', prompt: 'again' },
      'nope',
    ],
  });
  assert.deepEqual(config.customCommands, [{ id: 'doc', title: 'doc', prompt: 'Document ${selection}' }]);
  assert.equal(problems.length, 4);
  assert.match(problems[0], /customCommands\[1\]/);
  assert.match(problems[1], /customCommands\[2\] \(noprompt\): "prompt" is missing/);
  assert.match(problems[2], /duplicate id "doc"/);
  assert.match(problems[3], /customCommands\[4\]: not an object/);
  assert.deepEqual(from({ customCommands: { id: 'x' } }).problems, ['catbuddy.customCommands: not a list; ignored']);
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
    maxTokens: 0, maxRetries: 0, contextWindow: 0, disableStreaming: false, mode: '',
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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { askCompletions } from '../src/inlineCompletion';
import { clearedKeys, Inspected, serverConfig, userSettings } from '../src/config';

const doc = { uri: 'file:///w/main.go' };
const scratch = { uri: 'file:///w/.catbuddy-format-1.go' };
const ask = (enabled: boolean | undefined) => askCompletions({ enabled: () => enabled, skip: (d: typeof doc) => d === scratch });

test('askCompletions: unset (cb-ls decides) or on, each completion is asked of cb-ls', () => {
  assert.equal(ask(undefined)(doc), true);
  assert.equal(ask(true)(doc), true);
});

test('askCompletions: turned off in VS Code, nothing is asked; a scratch document is never asked about', () => {
  assert.equal(ask(false)(doc), false);
  assert.equal(ask(true)(scratch), false);
});

const from = (o: Record<string, unknown>) => serverConfig((k) => o[k]);

test('serverConfig: the inlineCompletion settings go to the server as its "inlineCompletion" object', () => {
  const { config, problems } = from({
    'inlineCompletion.enabled': true,
    'inlineCompletion.provider': 'ollama',
    'inlineCompletion.baseUrl': ' http://127.0.0.1:11434 ',
    'inlineCompletion.model': 'qwen2.5-coder:1.5b',
    'inlineCompletion.fim': 'qwen',
    'inlineCompletion.maxLines': 4,
    'inlineCompletion.debounceMs': 120,
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(config, {
    inlineCompletion: { enabled: true, provider: 'ollama', baseUrl: 'http://127.0.0.1:11434', model: 'qwen2.5-coder:1.5b', fim: 'qwen', maxLines: 4, debounceMs: 120 },
  });
  // Off is an opinion too: it is sent, and the server stops asking the model.
  assert.deepEqual(from({ 'inlineCompletion.enabled': false }).config, { inlineCompletion: { enabled: false } });
  // The defaults send nothing: cb-ls's config.json decides.
  assert.deepEqual(
    from({ 'inlineCompletion.provider': '', 'inlineCompletion.baseUrl': '', 'inlineCompletion.model': '', 'inlineCompletion.fim': '', 'inlineCompletion.maxLines': 0, 'inlineCompletion.debounceMs': 0 }),
    { config: {}, problems: [] },
  );
});

test('serverConfig: bad inlineCompletion values are dropped with a message naming the setting', () => {
  const { config, problems } = from({
    'inlineCompletion.enabled': true,
    'inlineCompletion.provider': 'copilot',
    'inlineCompletion.baseUrl': 'localhost:11434',
    'inlineCompletion.fim': 'middle',
    'inlineCompletion.maxLines': 500,
    'inlineCompletion.debounceMs': -5,
  });
  assert.deepEqual(config, { inlineCompletion: { enabled: true } });
  assert.deepEqual(problems, [
    'catbuddy.inlineCompletion.baseUrl: "localhost:11434" is not an http(s) URL; ignored',
    'catbuddy.inlineCompletion.provider: "copilot" is not one of ollama, openai, anthropic; ignored',
    'catbuddy.inlineCompletion.fim: "middle" is not one of auto, suffix, qwen, starcoder, codellama, deepseek, chat; ignored',
    'catbuddy.inlineCompletion.maxLines: 500 is not an integer from 1 to 200; ignored',
    'catbuddy.inlineCompletion.debounceMs: -5 is not an integer from 1 to 2000; ignored',
  ]);
});

function inspected(user: Record<string, unknown>, workspace: Record<string, unknown>) {
  const d: Record<string, unknown> = { 'inlineCompletion.enabled': false, 'inlineCompletion.model': '' };
  const get = (k: string) => workspace[k] ?? user[k] ?? d[k];
  const inspect = (k: string): Inspected => ({ defaultValue: d[k], globalValue: user[k], workspaceValue: workspace[k] });
  return userSettings(get, inspect);
}

test('userSettings: inlineCompletion.enabled is the user\'s value or unset, never the default nor a workspace\'s', () => {
  // Unset: nothing is sent, so cb-ls's config.json decides.
  let s = inspected({}, {});
  assert.equal(s.get('inlineCompletion.enabled'), undefined);
  assert.deepEqual(serverConfig(s.get).config, {});
  // A cloned project cannot turn on requests that cost the user money, nor pick where they go.
  s = inspected({}, { 'inlineCompletion.enabled': true, 'inlineCompletion.model': 'big-model' });
  assert.deepEqual(serverConfig(s.get).config, {});
  assert.deepEqual(s.ignored.map((i) => `${i.where} ${i.key}`).sort(), ['workspace inlineCompletion.enabled', 'workspace inlineCompletion.model']);
  // The user's own false is sent.
  s = inspected({ 'inlineCompletion.enabled': false }, {});
  assert.deepEqual(serverConfig(s.get).config, { inlineCompletion: { enabled: false } });
});

test('clearedKeys: taking out inlineCompletion.enabled is a cleared key (the server restarts to forget it)', () => {
  assert.deepEqual(clearedKeys({ inlineCompletion: { enabled: true, model: 'm' } }, { inlineCompletion: { model: 'm' } }), ['inlineCompletion.enabled']);
});

test('userSettings: inlineCompletion.nextEdit, like enabled, is the user\'s value or unset; a project cannot turn it on', () => {
  const d: Record<string, unknown> = { 'inlineCompletion.nextEdit': false };
  const at = (user: Record<string, unknown>, workspace: Record<string, unknown>) =>
    userSettings((k) => workspace[k] ?? user[k] ?? d[k], (k): Inspected => ({ defaultValue: d[k], globalValue: user[k], workspaceValue: workspace[k] }));
  let s = at({}, {});
  assert.deepEqual(serverConfig(s.get).config, {}); // unset: it follows enabled in the server
  s = at({}, { 'inlineCompletion.nextEdit': true });
  assert.deepEqual(serverConfig(s.get).config, {});
  assert.deepEqual(s.ignored.map((i) => `${i.where} ${i.key}`), ['workspace inlineCompletion.nextEdit']);
  s = at({ 'inlineCompletion.nextEdit': false }, {});
  assert.deepEqual(serverConfig(s.get).config, { inlineCompletion: { nextEdit: false } });
  s = at({ 'inlineCompletion.nextEdit': true }, {});
  assert.deepEqual(serverConfig(s.get).config, { inlineCompletion: { nextEdit: true } });
});

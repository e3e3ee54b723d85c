// Settings → server configuration. The keys match docs/PROTOCOL.md's
// initializationOptions; bad values are dropped with a message rather than sent,
// so a typo in settings.json never reaches the server as garbage. Custom
// commands are the exception: they go as written, and the server checks
// them (one rule for every editor) and names the bad ones itself.
// Pure: the caller passes a getter over the "catbuddy" configuration section.

/** ServerConfig is what the server reads from initializationOptions and didChangeConfiguration. */
export interface ServerConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  maxSteps?: number;
  /** customCommands is the setting as written; the server checks it. */
  customCommands?: unknown;
  maxTokens?: number;
  maxRetries?: number;
  contextWindow?: number;
  /** modelIdleTimeout and questionTimeout are in seconds. */
  modelIdleTimeout?: number;
  questionTimeout?: number;
  disableStreaming?: boolean;
  mode?: string;
  /** review: "pending" (the server's default) or "before". */
  review?: string;
  tools?: ToolSettings;
  /** inlineCompletion configures ghost-text completions (docs/completions.md). */
  inlineCompletion?: InlineCompletionSettings;
  /** apiKey comes from SecretStorage only, never from settings. */
  apiKey?: string;
}

/** ToolSettings are the server's "tools" settings (exec and web_fetch). */
export interface ToolSettings {
  execTimeout?: number;
  execMaxTimeout?: number;
  execSandbox?: boolean;
  execEnv?: string[];
  webAllow?: string[];
  exec?: { approval?: string; allow?: string[]; deny?: string[] };
}

/** InlineCompletionSettings are the server's "inlineCompletion" settings. */
export interface InlineCompletionSettings {
  /** enabled is sent only when the user set it, true or false (userSettings, OPINION_ONLY). */
  enabled?: boolean;
  /** nextEdit, like enabled, is sent only when the user set it; unset, it follows enabled. */
  nextEdit?: boolean;
  provider?: string;
  baseUrl?: string;
  model?: string;
  fim?: string;
  maxLines?: number;
  debounceMs?: number;
}

/** Mapped is a ServerConfig plus one message per setting that was ignored. */
export interface Mapped {
  config: ServerConfig;
  problems: string[];
}

/** PROVIDERS are the provider names the server understands. */
export const PROVIDERS = ['openai', 'anthropic'] as const;
/** MODES are the workspace modes (what the agent may touch). */
export const MODES = ['auto', 'project', 'internal'] as const;
/** COMPLETION_PROVIDERS are the providers that answer completions ("ollama": Ollama's own API). */
export const COMPLETION_PROVIDERS = ['ollama', 'openai', 'anthropic'] as const;
/** FIMS are the values of inlineCompletion.fim. */
export const FIMS = ['auto', 'suffix', 'qwen', 'starcoder', 'codellama', 'deepseek', 'chat'] as const;
/** APPROVALS are the values of tools.exec.approval. */
export const APPROVALS = ['ask', 'readOnly', 'allowAll'] as const;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** serverConfig maps the "catbuddy" settings (read through get) to the server's configuration. */
export function serverConfig(get: (key: string) => unknown): Mapped {
  const config: ServerConfig = {};
  const problems: string[] = [];

  const provider = str(get('provider'));
  if (provider !== undefined) {
    if ((PROVIDERS as readonly string[]).includes(provider)) {
      config.provider = provider;
    } else {
      problems.push(`catbuddy.provider: "${provider}" is not one of ${PROVIDERS.join(', ')}; ignored`);
    }
  }
  const model = str(get('model'));
  if (model !== undefined) {
    config.model = model;
  }
  const baseUrl = str(get('baseUrl'));
  if (baseUrl !== undefined) {
    if (/^https?:\/\/[^/]/.test(baseUrl)) {
      config.baseUrl = baseUrl;
    } else {
      problems.push(`catbuddy.baseUrl: "${baseUrl}" is not an http(s) URL; ignored`);
    }
  }
  const maxSteps = get('maxSteps');
  if (maxSteps !== undefined && maxSteps !== null && maxSteps !== 0) {
    if (typeof maxSteps === 'number' && Number.isInteger(maxSteps) && maxSteps > 0) {
      config.maxSteps = maxSteps;
    } else {
      problems.push(`catbuddy.maxSteps: ${JSON.stringify(maxSteps)} is not a positive integer; ignored`);
    }
  }
  const custom = get('customCommands');
  if (custom !== undefined && custom !== null && !(Array.isArray(custom) && custom.length === 0)) {
    config.customCommands = custom;
  }
  // 0, false, "" and [] are the settings' defaults: "no opinion", so
  // cb-ls's own config files still apply.
  const p = { get, problems };
  config.maxTokens = int(p, 'maxTokens', 1);
  config.maxRetries = int(p, 'maxRetries', -1);
  config.contextWindow = int(p, 'contextWindow', 1);
  config.modelIdleTimeout = int(p, 'modelIdleTimeout', 1, 86400);
  config.questionTimeout = int(p, 'questionTimeout', 1, 86400);
  if (get('disableStreaming') === true) {
    config.disableStreaming = true;
  }
  config.mode = oneOf(p, 'mode', MODES);
  config.review = oneOf(p, 'review', ['pending', 'before']);
  const tools: ToolSettings = {
    execTimeout: int(p, 'tools.execTimeout', 1),
    execMaxTimeout: int(p, 'tools.execMaxTimeout', 1),
    // On is the default: only turning the sandbox off is an opinion.
    execSandbox: get('tools.execSandbox') === false ? false : undefined,
    execEnv: words(p, 'tools.execEnv'),
    webAllow: words(p, 'tools.webAllow'),
  };
  const exec = { approval: oneOf(p, 'tools.exec.approval', APPROVALS), allow: words(p, 'tools.exec.allow'), deny: words(p, 'tools.exec.deny') };
  if (Object.values(exec).some((v) => v !== undefined)) {
    tools.exec = dropUndefined(exec);
  }
  if (Object.values(tools).some((v) => v !== undefined)) {
    config.tools = dropUndefined(tools);
  }
  const ic = inlineCompletion(p);
  if (Object.values(ic).some((v) => v !== undefined)) {
    config.inlineCompletion = dropUndefined(ic);
  }
  return { config: dropUndefined(config), problems };
}

/**
 * inlineCompletion reads the catbuddy.inlineCompletion.* settings. enabled
 * goes as the user set it, false included: the getter (userSettings)
 * answers undefined while it is unset, so cb-ls's config.json decides then.
 */
function inlineCompletion(r: Reader): InlineCompletionSettings {
  const enabled = r.get('inlineCompletion.enabled');
  const nextEdit = r.get('inlineCompletion.nextEdit');
  const baseUrl = str(r.get('inlineCompletion.baseUrl'));
  let url: string | undefined;
  if (baseUrl !== undefined) {
    if (/^https?:\/\/[^/]/.test(baseUrl)) {
      url = baseUrl;
    } else {
      r.problems.push(`catbuddy.inlineCompletion.baseUrl: "${baseUrl}" is not an http(s) URL; ignored`);
    }
  }
  return {
    enabled: typeof enabled === 'boolean' ? enabled : undefined,
    nextEdit: typeof nextEdit === 'boolean' ? nextEdit : undefined,
    provider: oneOf(r, 'inlineCompletion.provider', COMPLETION_PROVIDERS),
    baseUrl: url,
    model: str(r.get('inlineCompletion.model')),
    fim: oneOf(r, 'inlineCompletion.fim', FIMS),
    maxLines: int(r, 'inlineCompletion.maxLines', 1, 200),
    debounceMs: int(r, 'inlineCompletion.debounceMs', 1, 2000),
  };
}

interface Reader {
  get: (key: string) => unknown;
  problems: string[];
}

/** int reads an integer setting; 0 (the default) and null send nothing. */
function int(r: Reader, key: string, min: number, max = Infinity): number | undefined {
  const v = r.get(key);
  if (v === undefined || v === null || v === 0) {
    return undefined;
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) {
    return v;
  }
  const want = max === Infinity ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  r.problems.push(`catbuddy.${key}: ${JSON.stringify(v)} is not ${want}; ignored`);
  return undefined;
}

/** oneOf reads a string setting that must be one of allowed; "" sends nothing. */
function oneOf(r: Reader, key: string, allowed: readonly string[]): string | undefined {
  const v = str(r.get(key));
  if (v === undefined) {
    return undefined;
  }
  if (allowed.includes(v)) {
    return v;
  }
  r.problems.push(`catbuddy.${key}: "${v}" is not one of ${allowed.join(', ')}; ignored`);
  return undefined;
}

/** words reads a list of non-empty strings; [] sends nothing. */
function words(r: Reader, key: string): string[] | undefined {
  const v = r.get(key);
  if (v === undefined || v === null) {
    return undefined;
  }
  if (!Array.isArray(v) || v.some((w) => str(w) === undefined)) {
    r.problems.push(`catbuddy.${key}: not a list of non-empty strings; ignored`);
    return undefined;
  }
  return v.length > 0 ? v.map((w: string) => w.trim()) : undefined;
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** withApiKey adds the secret to a configuration meant for the server (never for settings.json). */
export function withApiKey(config: ServerConfig, apiKey: string | undefined): ServerConfig {
  return apiKey ? { ...config, apiKey } : config;
}

/**
 * clearedKeys lists the keys set in prev and absent from next, nested ones
 * with dots (tools.webAllow). The server keeps a value until told
 * otherwise, and an absent key is "no opinion" (so that unset editor
 * settings do not override cb-ls's own config files): clearing a setting
 * therefore needs a server restart to take effect. The server adds up
 * tools.exec.allow and .deny from every source, so a rule taken out of
 * either counts as cleared too.
 */
export function clearedKeys(prev: ServerConfig, next: ServerConfig): string[] {
  return cleared(prev as Record<string, unknown>, next as Record<string, unknown>, '').filter((k) => k !== 'apiKey');
}

const ADDED_UP = new Set(['tools.exec.allow', 'tools.exec.deny']);

function cleared(prev: Record<string, unknown>, next: Record<string, unknown>, prefix: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(prev)) {
    const key = prefix + k;
    const n = next[k];
    if (n === undefined) {
      out.push(key);
    } else if (isObject(v) && isObject(n)) {
      out.push(...cleared(v, n, key + '.'));
    } else if (ADDED_UP.has(key) && Array.isArray(v) && Array.isArray(n) && v.some((r) => !n.includes(r))) {
      out.push(key);
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * USER_ONLY are the settings that decide where the key and the code go
 * (provider, baseUrl), which binary runs (serverPath), which prompts run
 * (customCommands), and how far the guards reach (mode, tools). They have
 * "scope": "machine" in package.json, so VS Code ignores them in a
 * workspace's .vscode/settings.json; userSettings ignores them there too,
 * so an older VS Code or a misapplied scope cannot let a cloned project
 * redirect the key. A project sets these in .catbuddy/config.json, which
 * cb-ls applies only once the user trusts the project. Completions'
 * switch, provider, endpoint and model are user settings too: cb-ls
 * ignores an untrusted project's inlineCompletion whole, and a cloned
 * project's settings.json must not turn on requests that cost the user
 * money at every pause in their typing, or send their code elsewhere.
 */
export const USER_ONLY: readonly string[] = [
  'serverPath',
  'provider',
  'baseUrl',
  'customCommands',
  'mode',
  'tools.execTimeout',
  'tools.execMaxTimeout',
  'tools.execSandbox',
  'tools.execEnv',
  'tools.webAllow',
  'tools.exec.approval',
  'tools.exec.allow',
  'tools.exec.deny',
  'inlineCompletion.enabled',
  'inlineCompletion.nextEdit',
  'inlineCompletion.provider',
  'inlineCompletion.baseUrl',
  'inlineCompletion.model',
];

/**
 * OPINION_ONLY are the USER_ONLY settings whose default is no opinion: the
 * user's value, true or false, is sent, and nothing while it is unset, so
 * that cb-ls's config.json still decides. A boolean's default cannot say
 * "unset" otherwise.
 */
export const OPINION_ONLY: ReadonlySet<string> = new Set(['inlineCompletion.enabled', 'inlineCompletion.nextEdit']);

/** Inspected is the part of WorkspaceConfiguration.inspect's answer read here. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

/** Ignored is a workspace or folder value of a USER_ONLY setting that was not used. */
export interface Ignored {
  key: string;
  where: 'workspace' | 'workspace folder';
  value: unknown;
}

/**
 * userSettings wraps a getter over the "catbuddy" section so that the
 * USER_ONLY keys come from the user's settings (or the default) only; the
 * other keys read as VS Code resolves them, workspace and folder included.
 * ignored lists each workspace or folder value it passed over.
 */
export function userSettings(
  get: (key: string) => unknown,
  inspect: (key: string) => Inspected | undefined,
): { get: (key: string) => unknown; ignored: Ignored[] } {
  const ignored: Ignored[] = [];
  const user = new Map<string, unknown>();
  for (const key of USER_ONLY) {
    const i = inspect(key);
    if (i === undefined) {
      user.set(key, undefined); // unknown to VS Code: no user value to trust either
      continue;
    }
    for (const [where, value] of [
      ['workspace', i.workspaceValue ?? i.workspaceLanguageValue],
      ['workspace folder', i.workspaceFolderValue ?? i.workspaceFolderLanguageValue],
    ] as const) {
      if (value !== undefined) {
        ignored.push({ key, where, value });
      }
    }
    user.set(key, i.globalValue !== undefined ? i.globalValue : OPINION_ONLY.has(key) ? undefined : i.defaultValue);
  }
  return { get: (key) => (user.has(key) ? user.get(key) : get(key)), ignored };
}

/** ignoredMessage says which value was not used, and where a project puts it instead. */
export function ignoredMessage(i: Ignored): string {
  return (
    `catbuddy.${i.key} ${JSON.stringify(i.value)} in the ${i.where} settings is ignored: it is a user setting, ` +
    'so that a project cannot choose where your API key and code go or what runs. ' +
    "A project's own settings belong in .catbuddy/config.json, which cb-ls applies once you trust the project."
  );
}

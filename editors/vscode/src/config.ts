// Settings → server configuration. The keys match docs/PROTOCOL.md's
// initializationOptions; bad values are dropped with a message rather than sent,
// so a typo in settings.json never reaches the server as garbage.
// Pure: the caller passes a getter over the "catbuddy" configuration section.

/** CustomCommand is a user-defined agent command (catbuddy.customCommands). */
export interface CustomCommand {
  id: string;
  title: string;
  prompt: string;
}

/** ServerConfig is what the server reads from initializationOptions and didChangeConfiguration. */
export interface ServerConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  maxSteps?: number;
  customCommands?: CustomCommand[];
  /** apiKey comes from SecretStorage only, never from settings. */
  apiKey?: string;
}

/** Mapped is a ServerConfig plus one message per setting that was ignored. */
export interface Mapped {
  config: ServerConfig;
  problems: string[];
}

/** PROVIDERS are the provider names the server understands. */
export const PROVIDERS = ['openai', 'anthropic'] as const;

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

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
  const custom = customCommands(get('customCommands'), problems);
  if (custom.length > 0) {
    config.customCommands = custom;
  }
  return { config, problems };
}

function customCommands(v: unknown, problems: string[]): CustomCommand[] {
  if (v === undefined || v === null) {
    return [];
  }
  if (!Array.isArray(v)) {
    problems.push('catbuddy.customCommands: not a list; ignored');
    return [];
  }
  const out: CustomCommand[] = [];
  const seen = new Set<string>();
  v.forEach((c: unknown, i: number) => {
    const where = `catbuddy.customCommands[${i}]`;
    if (typeof c !== 'object' || c === null) {
      problems.push(`${where}: not an object; ignored`);
      return;
    }
    const o = c as Record<string, unknown>;
    const id = str(o.id);
    const prompt = str(o.prompt);
    if (id === undefined || !ID.test(id)) {
      problems.push(`${where}: "id" must be letters, digits, ".", "_" or "-"; ignored`);
      return;
    }
    if (prompt === undefined) {
      problems.push(`${where} (${id}): "prompt" is missing; ignored`);
      return;
    }
    if (seen.has(id)) {
      problems.push(`${where}: duplicate id "${id}"; ignored`);
      return;
    }
    seen.add(id);
    out.push({ id, title: str(o.title) ?? id, prompt });
  });
  return out;
}

/** withApiKey adds the secret to a configuration meant for the server (never for settings.json). */
export function withApiKey(config: ServerConfig, apiKey: string | undefined): ServerConfig {
  return apiKey ? { ...config, apiKey } : config;
}

/**
 * clearedKeys lists the keys set in prev and absent from next. The server
 * keeps a value until told otherwise, and an absent key is "no opinion" (so
 * that unset editor settings do not override cb-ls's own config files):
 * clearing a setting therefore needs a server restart to take effect.
 */
export function clearedKeys(prev: ServerConfig, next: ServerConfig): string[] {
  return Object.keys(prev).filter((k) => k !== 'apiKey' && !(k in next));
}

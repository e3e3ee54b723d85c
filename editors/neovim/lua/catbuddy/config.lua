-- catbuddy.config: the plugin's options, their defaults and validation, and
-- the settings object the server reads (initializationOptions and the
-- "catbuddy" section of workspace/configuration).
local M = {}

-- defaults are documented in doc/catbuddy.txt (|catbuddy-options|).
M.defaults = {
  cmd = { 'cb-ls', 'serve' },
  cmd_env = nil,
  provider = nil, -- "openai" | "anthropic"; nil lets the server decide
  model = nil,
  base_url = nil,
  api_key = nil, -- string or function returning one; sent only at initialize
  max_steps = nil,
  custom_commands = {},
  save_after_apply = true,
  review = 'pending', -- 'pending' | 'before' (true is an alias) | false | function(change, done)
  keymaps = {
    keep = '<leader>ak',
    undo = '<leader>au',
    keep_all = '<leader>aK',
    undo_all = '<leader>aU',
    next_hunk = ']c',
    prev_hunk = '[c',
    -- A conflicted hunk's ways out (catbuddy.pending_resolve).
    resolve_both = '<leader>ab',
    resolve_theirs = '<leader>ay',
    resolve_run = '<leader>ar',
    resolve_markers = '<leader>am',
  },
  autostart = true,
  filetypes = nil, -- nil: every file buffer of the project
  root_markers = { '.git' },
  notify_progress = true,
  open_transcript = false,
  flags = {},
  -- Ghost-text completions at the cursor (catbuddy.inline, :help catbuddy-inline).
  inline_completion = {
    enabled = nil, -- nil: cb-ls's config.json decides; true/false is sent and wins
    next_edit = nil, -- next-edit suggestions; nil: as enabled; true/false is sent and wins
    accept = '<M-l>', -- insert-mode key that accepts the suggestion; false: none
    debounce_ms = 150, -- before 0.12 only: the pause in typing before asking
    provider = nil, -- the rest goes to the server as inlineCompletion.*
    base_url = nil,
    model = nil,
    fim = nil,
    max_lines = nil,
  },
  -- The key that keeps a next-edit suggestion at the cursor (catbuddy.next_edit).
  next_edit = {
    keep = '<Tab>', -- normal and insert mode; false: not mapped
  },
}

local function fail(fmt, ...)
  return nil, 'catbuddy: ' .. string.format(fmt, ...)
end

local function is_list(t)
  if type(t) ~= 'table' then
    return false
  end
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  return n == #t
end

-- normalize_commands accepts a list of {id, title, prompt} or a map
-- id -> {title, prompt} or id -> prompt (the shorter form people write by
-- hand) and returns a list sorted by id so the server sees a stable
-- order. It only changes the shape: the server checks the commands (one
-- rule for every editor) and names the bad ones with window/showMessage.
local function normalize_commands(cc)
  if cc == nil then
    return {}
  end
  if type(cc) ~= 'table' or is_list(cc) then
    return cc
  end
  local out = {}
  for id, c in pairs(cc) do
    if type(c) == 'string' then
      c = { prompt = c }
    end
    if type(c) == 'table' then
      out[#out + 1] = { id = id, title = c.title, prompt = c.prompt }
    else
      out[#out + 1] = { id = id, prompt = c }
    end
  end
  table.sort(out, function(a, b)
    return tostring(a.id) < tostring(b.id)
  end)
  return out
end

local checks = {
  cmd = function(v)
    if type(v) == 'string' then
      return { v, 'serve' }
    end
    if not is_list(v) or #v == 0 then
      return fail('cmd: expected a non-empty list of strings, got %s', vim.inspect(v))
    end
    for i, a in ipairs(v) do
      if type(a) ~= 'string' then
        return fail('cmd[%d]: expected a string, got %s', i, type(a))
      end
    end
    return v
  end,
  provider = function(v)
    if v ~= nil and v ~= 'openai' and v ~= 'anthropic' then
      return fail('provider: expected "openai" or "anthropic", got %s', vim.inspect(v))
    end
    return v
  end,
  max_steps = function(v)
    if v ~= nil and (type(v) ~= 'number' or v < 1 or v % 1 ~= 0) then
      return fail('max_steps: expected a positive integer, got %s', vim.inspect(v))
    end
    return v
  end,
  review = function(v)
    if v == 'pending' or v == 'before' or type(v) == 'boolean' or type(v) == 'function' then
      return v
    end
    return fail('review: expected "pending", "before", true, false or function(change, done), got %s', vim.inspect(v))
  end,
  keymaps = function(v)
    if v == false then
      return {}
    end
    if type(v) ~= 'table' then
      return fail('keymaps: expected a table or false, got %s', type(v))
    end
    local out = vim.deepcopy(M.defaults.keymaps)
    for k, lhs in pairs(v) do
      if out[k] == nil then
        return fail('keymaps: unknown key %s (known: keep, undo, keep_all, undo_all, next_hunk, prev_hunk, resolve_both, resolve_theirs, resolve_run, resolve_markers)', k)
      end
      if lhs ~= false and type(lhs) ~= 'string' then
        return fail('keymaps.%s: expected a string or false, got %s', k, type(lhs))
      end
      out[k] = lhs
    end
    return out
  end,
  api_key = function(v)
    if v ~= nil and type(v) ~= 'string' and type(v) ~= 'function' then
      return fail('api_key: expected a string or a function, got %s', type(v))
    end
    return v
  end,
  custom_commands = normalize_commands,
  next_edit = function(v)
    if v == false then
      return { keep = false }
    end
    if type(v) ~= 'table' then
      return fail('next_edit: expected a table or false, got %s', type(v))
    end
    local out = vim.deepcopy(M.defaults.next_edit)
    for k, x in pairs(v) do
      if out[k] == nil then
        return fail('next_edit: unknown key %s (known: keep)', tostring(k))
      end
      if x ~= false and type(x) ~= 'string' then
        return fail('next_edit.%s: expected a string or false, got %s', k, type(x))
      end
      out[k] = x
    end
    return out
  end,
  inline_completion = function(v)
    local out = vim.deepcopy(M.defaults.inline_completion)
    if type(v) == 'boolean' then
      out.enabled = v
      return out
    end
    if type(v) ~= 'table' then
      return fail('inline_completion: expected a table or a boolean, got %s', type(v))
    end
    local want = {
      enabled = 'boolean', next_edit = 'boolean', accept = 'string', debounce_ms = 'number', provider = 'string',
      base_url = 'string', model = 'string', fim = 'string', max_lines = 'number',
    }
    for k, x in pairs(v) do
      if want[k] == nil then
        return fail('inline_completion: unknown key %s (known: enabled, next_edit, accept, debounce_ms, provider, base_url, model, fim, max_lines)', tostring(k))
      end
      if type(x) ~= want[k] and not (k == 'accept' and x == false) then
        return fail('inline_completion.%s: expected a %s, got %s', k, want[k] .. (k == 'accept' and ' or false' or ''), type(x))
      end
      out[k] = x
    end
    if out.provider ~= nil and out.provider ~= 'ollama' and out.provider ~= 'openai' and out.provider ~= 'anthropic' then
      return fail('inline_completion.provider: expected "ollama", "openai" or "anthropic", got %s', vim.inspect(out.provider))
    end
    if out.debounce_ms < 0 or out.debounce_ms % 1 ~= 0 then
      return fail('inline_completion.debounce_ms: expected a non-negative integer, got %s', vim.inspect(out.debounce_ms))
    end
    return out
  end,
}

local types = {
  model = 'string',
  base_url = 'string',
  save_after_apply = 'boolean',
  autostart = 'boolean',
  notify_progress = 'boolean',
  open_transcript = 'boolean',
  filetypes = 'table',
  root_markers = 'table',
  cmd_env = 'table',
  flags = 'table',
}

--- resolve merges opts over the defaults and validates the result.
--- It returns the config, or nil and an error naming the bad option;
--- unknown keys are errors too, so a typo does not silently do nothing.
function M.resolve(opts)
  opts = opts or {}
  if type(opts) ~= 'table' then
    return fail('setup: expected a table of options, got %s', type(opts))
  end
  for k in pairs(opts) do
    if M.defaults[k] == nil and types[k] == nil and checks[k] == nil then
      return fail('unknown option %q', tostring(k))
    end
  end
  local cfg = vim.deepcopy(M.defaults)
  for k, v in pairs(opts) do
    cfg[k] = v
  end
  for k, want in pairs(types) do
    if cfg[k] ~= nil and type(cfg[k]) ~= want then
      return fail('%s: expected a %s, got %s', k, want, type(cfg[k]))
    end
  end
  for k, check in pairs(checks) do
    local v, err = check(cfg[k])
    if err then
      return nil, err
    end
    cfg[k] = v
  end
  return cfg
end

--- settings is what the server reads from workspace/configuration (section
--- "catbuddy"). It never carries the API key: the protocol accepts the key
--- only from initializationOptions.
---
--- It starts as vim.empty_dict(): with no option set, a plain Lua table
--- would be encoded as the JSON array [] instead of the object {}.
function M.settings(cfg)
  local s = vim.empty_dict()
  s.provider = cfg.provider
  s.model = cfg.model
  s.baseUrl = cfg.base_url
  s.maxSteps = cfg.max_steps
  -- Every review other than 'pending' (the server's default, so not sent)
  -- is the server's "before": each edit is reviewed (or, with false,
  -- applied) as it is made.
  if not M.pending(cfg) then
    s.review = 'before'
  end
  local cc = cfg.custom_commands
  if cc ~= nil and not (type(cc) == 'table' and next(cc) == nil) then
    s.customCommands = cc
  end
  -- The server checks these values (one rule for every editor) and names
  -- a bad one; enabled = false is sent too, so the server stops asking.
  local ic = cfg.inline_completion or {}
  local server = {
    enabled = ic.enabled,
    nextEdit = ic.next_edit,
    provider = ic.provider,
    baseUrl = ic.base_url,
    model = ic.model,
    fim = ic.fim,
    maxLines = ic.max_lines,
  }
  if next(server) ~= nil then
    s.inlineCompletion = server
  end
  return s
end

--- pending reports whether cfg shows a run's changes as pending hunks.
function M.pending(cfg)
  return cfg.review == nil or cfg.review == 'pending'
end

--- init_options is the initializationOptions object: the settings plus the
--- API key when one is configured.
function M.init_options(cfg)
  local s = M.settings(cfg)
  local key = cfg.api_key
  if type(key) == 'function' then
    local ok, v = pcall(key)
    key = ok and v or nil
  end
  if type(key) == 'string' and key ~= '' then
    s.apiKey = key
  end
  return s
end

return M

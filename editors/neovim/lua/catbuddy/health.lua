-- :checkhealth catbuddy — the binary, its version, the provider
-- configuration, the running clients and the language servers cb-ls runs.
local compat = require('catbuddy.compat')

local M = {}

function M.check()
  local h = compat.health()
  local client = require('catbuddy.client')
  local cfg = client.cfg

  h.start('catbuddy: setup')
  if not cfg then
    h.error('require("catbuddy").setup() has not been called', { 'add require("catbuddy").setup({}) to your config' })
    return
  end
  h.ok('setup() called; review = ' .. (type(cfg.review) == 'function' and 'function' or tostring(cfg.review)) .. ', save_after_apply = ' .. tostring(cfg.save_after_apply))
  if vim.fn.has('nvim-0.7') ~= 1 then
    h.error('Neovim 0.7 or newer is needed')
  end

  h.start('catbuddy: cb-ls binary')
  local bin = cfg.cmd[1]
  if vim.fn.executable(bin) ~= 1 then
    h.error(string.format('%q is not executable', bin), { 'install cb-ls (go install github.com/catbuddy/cb-ls/cmd/cb-ls@latest) or set cmd in setup()' })
  else
    h.ok('found ' .. vim.fn.exepath(bin))
    local out = vim.fn.system({ bin, 'version' })
    if vim.v.shell_error == 0 then
      h.ok('version: ' .. vim.trim(out))
    else
      h.warn('`' .. bin .. ' version` failed: ' .. vim.trim(out))
    end
  end

  h.start('catbuddy: provider')
  -- CB_PROVIDER is the variable cb-ls itself reads.
  local provider = cfg.provider or vim.env.CB_PROVIDER
  if provider then
    h.ok('provider: ' .. provider .. (cfg.model and (', model: ' .. cfg.model) or ' (server default model)'))
  else
    h.info('no provider set in setup(); cb-ls uses its own configuration and environment')
  end
  if cfg.base_url then
    h.info('base_url: ' .. cfg.base_url)
  end
  local env = (provider == 'anthropic') and 'ANTHROPIC_API_KEY' or 'OPENAI_API_KEY'
  if cfg.api_key then
    h.ok('API key: set in setup() (sent only at initialize)')
  elseif vim.env[env] and vim.env[env] ~= '' then
    h.ok('API key: $' .. env .. ' is set (cb-ls inherits it)')
  elseif cfg.base_url and (cfg.base_url:match('//127%.') or cfg.base_url:match('//localhost')) then
    h.info('no API key; fine for a local server at ' .. cfg.base_url)
  else
    h.warn('no API key: set $' .. env .. ' or api_key in setup()')
  end

  h.start('catbuddy: connection')
  local clients = compat.get_clients({ name = client.name })
  if #clients == 0 then
    h.info('no cb-ls client running (it starts when a project file opens)')
  end
  for _, c in ipairs(clients) do
    local info = c.server_info or {}
    local state = compat.is_stopped(c) and 'stopped' or (c.initialized and 'running' or 'starting')
    local msg = string.format('client %d (%s) for %s: %s', c.id, (info.name or 'cb-ls') .. ' ' .. (info.version or ''), c.config.root_dir or '?', state)
    if state == 'running' then
      local cmds = c.server_capabilities and c.server_capabilities.executeCommandProvider
      local has_run = cmds and vim.tbl_contains(cmds.commands or {}, 'catbuddy.run')
      if has_run then
        h.ok(msg)
      else
        h.warn(msg .. '; the server does not offer catbuddy.run (too old?)')
      end
    else
      h.warn(msg)
    end
    if state == 'running' then
      M.trust(h, c)
      M.servers(h, c)
    end
  end
  M.pending(h)
end

--- pending reports the runs with pending changes (none is fine).
function M.pending(h)
  local list = require('catbuddy.pending').summary()
  if #list == 0 then
    h.ok('no pending changes')
  end
  for _, p in ipairs(list) do
    h.info(string.format('run %s (%s): %d pending hunk(s) in %d file(s); :CatbuddyPending lists them', p.runId, tostring(p.title), p.hunks, p.files))
  end
end

--- ask runs the server's command (no arguments) and returns its table
--- answer, or warns that the server could not be asked what and returns nil.
local function ask(h, c, command, what)
  local res = compat.request_sync(c, 'workspace/executeCommand', { command = command, arguments = {} }, 2000)
  local out = res and res.result
  if type(out) ~= 'table' then
    h.warn('could not ask the server ' .. what .. ': ' .. vim.inspect(res and res.err))
    return nil
  end
  return out
end

--- status_lines renders catbuddy.status: the language servers cb-ls
--- started, each with its memory, and their sum.
function M.status_lines(st)
  local servers = type(st.languageServers) == 'table' and st.languageServers or {}
  if #servers == 0 then
    return { 'no language servers of its own running' }
  end
  local total, known = 0, true
  for _, l in ipairs(servers) do
    if type(l.rss) == 'number' and l.rss >= 0 then
      total = total + l.rss
    else
      known = false
    end
  end
  local out = { string.format('%d language server%s of its own%s', #servers, #servers == 1 and '' or 's',
    known and string.format(', %.1f MB resident in all', total / 1e6) or '') }
  for _, l in ipairs(servers) do
    out[#out + 1] = tostring(l.text)
  end
  return out
end

--- servers reports the language servers cb-ls started and their memory
--- (catbuddy.status); the editor's own are Neovim's to show.
function M.servers(h, c)
  local st = ask(h, c, 'catbuddy.status', 'for its status')
  if not st then
    return
  end
  for _, line in ipairs(M.status_lines(st)) do
    h.info(line)
  end
end

--- trust reports, per folder, what the project's .catbuddy files ask for
--- and whether it applies (catbuddy.trustStatus).
function M.trust(h, c)
  local list = ask(h, c, 'catbuddy.trustStatus', 'about project trust')
  if not list then
    return
  end
  for _, p in ipairs(list) do
    local wants = vim.list_extend(vim.deepcopy(p.servers or {}), p.settings or {})
    if #wants == 0 then
      h.ok(p.root .. ': its .catbuddy files ask for nothing that needs trust')
    elseif p.trusted then
      h.ok(p.root .. ': trusted; applies ' .. table.concat(wants, '; '))
    else
      h.warn(p.root .. ': not trusted; ignored: ' .. table.concat(wants, '; '), { ':CatbuddyTrust to trust it (it asks, naming each of these)' })
    end
    for _, i in ipairs(p.ignored or {}) do
      h.warn(p.root .. ': ignored: ' .. i)
    end
  end
end

return M

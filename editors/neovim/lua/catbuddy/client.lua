-- catbuddy.client: one cb-ls client per project root, attached to the
-- project's file buffers, with its own handlers (the plugin never replaces
-- the global vim.lsp.handlers).
local compat = require('catbuddy.compat')
local config = require('catbuddy.config')
local diagnostics = require('catbuddy.diagnostics')
local review = require('catbuddy.review')
local runs = require('catbuddy.runs')
local restart = require('catbuddy.restart')

local M = {}

M.name = 'catbuddy'

-- cfg is the resolved config; set by init.setup.
M.cfg = nil

--- commands caches catbuddy.listCommands per client id.
M.commands = {}

--- by_root maps a project root to its client id.
M.by_root = {}

local function get_cfg()
  return M.cfg
end

--- root returns the project root of path: the nearest directory upward
--- holding one of markers, else the current directory.
function M.root(path, markers)
  local dir = path ~= '' and vim.fn.fnamemodify(path, ':p:h') or vim.fn.getcwd()
  while true do
    for _, m in ipairs(markers or { '.git' }) do
      if compat.uv.fs_stat(dir .. '/' .. m) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.getcwd()
end

--- eligible reports whether the plugin attaches to bufnr: a normal buffer
--- with a file name (and a listed filetype when filetypes is set).
function M.eligible(bufnr, cfg)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%w+://') then
    return false
  end
  if cfg.filetypes then
    return vim.tbl_contains(cfg.filetypes, vim.api.nvim_buf_get_option(bufnr, 'filetype'))
  end
  return true
end

-- call_server sends workspace/executeCommand for a client-side command
-- after adding every source's diagnostics to its argument, and records the
-- run it starts. Neovim's code actions carry only this server's
-- diagnostics; the agent should see all of them.
local function enrich_and_run(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  local arg = require('catbuddy.changes').copy((command.arguments or {})[1] or {})
  local bufnr = ctx.bufnr or vim.api.nvim_get_current_buf()
  if type(arg.range) == 'table' and (command.command == 'catbuddy.fix' or arg.command == 'fix') then
    local extra = diagnostics.in_range(bufnr, arg.range.start.line, arg.range['end'].line)
    arg.diagnostics = diagnostics.merge(arg.diagnostics, extra)
  end
  M.execute(client, command.command, arg, bufnr)
end

--- failure_level is the level a failed command is shown at: a refusal
--- because the document or the run is busy (LSP's RequestFailed, -32803)
--- is expected and a warning; anything else is an error.
function M.failure_level(err)
  if type(err) == 'table' and err.code == -32803 then
    return vim.log.levels.WARN
  end
  return vim.log.levels.ERROR
end

--- execute sends a catbuddy.* command and, for runs, records the run.
function M.execute(client, name, arg, bufnr, on_result)
  local reply = name == 'catbuddy.reply' and runs.reply_started(client.id, arg.runId)
  compat.request(client, 'workspace/executeCommand', { command = name, arguments = { arg } }, function(err, result)
    if err then
      vim.notify(string.format('catbuddy: %s: %s', name, err.message or vim.inspect(err)), M.failure_level(err))
    end
    local run
    if reply then
      run = reply
    elseif not err and type(result) == 'table' and result.runId then
      run = runs.started(result.runId, client.id, bufnr, arg.command or (name == 'catbuddy.fix' and 'fix' or nil))
    end
    if on_result then
      on_result(err, result, run)
    end
  end, bufnr)
end

local function handlers()
  local default_progress = vim.lsp.handlers['$/progress']
  local default_show_message = vim.lsp.handlers['window/showMessage']
  local default_show_document = vim.lsp.handlers['window/showDocument']
  return {
    ['workspace/applyEdit'] = review.handler(get_cfg),
    ['window/showMessageRequest'] = require('catbuddy.ask').handler,
    ['workspace/configuration'] = function(_, params)
      local out = {}
      for i, item in ipairs(params and params.items or {}) do
        local s = item.section
        if s == nil or s == 'catbuddy' then
          out[i] = config.settings(M.cfg)
        elseif type(s) == 'string' and s:match('^catbuddy%.') then
          local v = config.settings(M.cfg)[s:sub(#'catbuddy.' + 1)]
          out[i] = v == nil and vim.NIL or v
        else
          out[i] = vim.NIL
        end
      end
      return out
    end,
    ['$/progress'] = function(err, params, ctx, hcfg)
      -- Keep Neovim's own progress handling (LspProgress, statuslines).
      if default_progress then
        pcall(default_progress, err, params, ctx, hcfg)
      end
      runs.on_progress(params, M.cfg)
    end,
    ['catbuddy/runEvent'] = function(_, params, ctx)
      if type(params) == 'table' and params.kind == 'files_changed' then
        require('catbuddy.refresh').files_changed(params)
      end
      runs.on_event(params, ctx, M.cfg)
    end,
    ['catbuddy/pendingChanges'] = function(_, params, ctx)
      require('catbuddy.pending').on_notification(params, ctx.client_id)
    end,
    ['catbuddy/fileEdit'] = function(_, params)
      runs.on_file_edit(params)
    end,
    ['catbuddy/diagnostics'] = function(_, params)
      return require('catbuddy.diagnostics_request').answer(params)
    end,
    ['catbuddy/languageFeature'] = function(_, params)
      return require('catbuddy.language_features').answer(params)
    end,
    ['catbuddy/formatText'] = function(_, params)
      return require('catbuddy.format_text').answer(params)
    end,
    ['window/showMessage'] = function(err, params, ctx, hcfg)
      if params and params.type == 1 then
        return default_show_message(err, params, ctx, hcfg)
      end
      -- Warnings (invalid settings) go through vim.notify like the rest:
      -- Neovim's own handler only echoes them, easily overwritten.
      local level = params and params.type == 2 and vim.log.levels.WARN or vim.log.levels.INFO
      runs.show(params and params.message, level, ctx.client_id or 0)
    end,
    ['window/showDocument'] = function(err, params, ctx, hcfg)
      -- The transcript opens on :CatbuddyTranscript, not after every run.
      local uri = params and params.uri or ''
      if uri:match('/%.catbuddy/') and not M.cfg.open_transcript then
        local r = runs.last and runs.runs[runs.last]
        if r and r.client_id == ctx.client_id then
          r.transcript_uri = r.transcript_uri or uri
        end
        return { success = true }
      end
      if default_show_document then
        return default_show_document(err, params, ctx, hcfg)
      end
      return { success = false }
    end,
  }
end

-- capabilities are Neovim's, plus the experimental catbuddy.runEnd: the
-- plugin shows each run's end itself, from the end runEvent, so the server
-- sends no window/showMessage (nor showDocument) for it, and a run's
-- outcome is one notification (docs/PROTOCOL.md). languageFeatures lists
-- the methods the plugin answers by asking the buffer's other language
-- servers (language_features.lua). pendingChanges: the plugin draws a
-- run's pending changes in the buffers and keeps or discards them
-- (pending.lua), so runs never stop for a review. formatText: the plugin
-- formats the text of a change before review with the file's language
-- servers, in a hidden scratch buffer (format_text.lua).
local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.catbuddy = { runEnd = true, pendingChanges = true, formatText = true, languageFeatures = require('catbuddy.language_features').methods }
  return caps
end

--- make_config returns the client config for a root.
function M.make_config(root, cfg)
  return {
    capabilities = capabilities(),
    name = M.name,
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = config.init_options(cfg),
    settings = { catbuddy = config.settings(cfg) },
    -- cb-ls answers utf-16; Neovim 0.7 ignores the server's choice and
    -- uses this.
    offset_encoding = 'utf-16',
    flags = cfg.flags,
    handlers = handlers(),
    commands = {
      ['catbuddy.fix'] = enrich_and_run,
      ['catbuddy.run'] = enrich_and_run,
    },
    on_init = function(client)
      M.refresh_commands(client)
    end,
    on_attach = function(client, bufnr)
      restart.on_attach(client, bufnr)
      require('catbuddy.inline').attach(client, bufnr, M.cfg)
      -- After inline's: its accept key, if the same, is what Tab falls back to.
      require('catbuddy.next_edit').attach(bufnr, M.cfg)
    end,
    on_exit = function(code, signal, client_id)
      M.commands[client_id] = nil
      -- The next server notifies what is still pending at its start.
      vim.schedule(function()
        require('catbuddy.pending').forget(client_id)
      end)
      if M.by_root[root] == client_id then
        M.by_root[root] = nil
      end
      restart.on_exit(root, code, signal, client_id, M.ensure)
    end,
  }
end

--- refresh_commands fetches catbuddy.listCommands for completion.
function M.refresh_commands(client)
  compat.request(client, 'workspace/executeCommand', { command = 'catbuddy.listCommands', arguments = {} }, function(err, result)
    if not err and type(result) == 'table' then
      M.commands[client.id] = result
    end
  end)
end

--- get returns the running catbuddy client attached to bufnr, or nil.
function M.get(bufnr)
  for _, c in ipairs(compat.get_clients({ name = M.name, bufnr = bufnr })) do
    if not compat.is_stopped(c) then
      return c
    end
  end
  return nil
end

--- ensure starts (or reuses) the client of bufnr's project and attaches
--- it; it returns the client, or nil and an error.
function M.ensure(bufnr)
  local cfg = M.cfg
  if not cfg then
    return nil, 'catbuddy: call require("catbuddy").setup() first'
  end
  local c = M.get(bufnr)
  if c then
    return c
  end
  if not M.eligible(bufnr, { filetypes = nil }) then
    return nil, 'catbuddy: this buffer is not a file'
  end
  if vim.fn.executable(cfg.cmd[1]) ~= 1 then
    return nil, string.format('catbuddy: %q is not executable; install cb-ls or set cmd (see :help catbuddy-install)', cfg.cmd[1])
  end
  local root = M.root(vim.api.nvim_buf_get_name(bufnr), cfg.root_markers)
  -- One client per root. The plugin keeps its own map because Neovim 0.7
  -- lists a client only once it has initialized.
  local known = M.by_root[root] and vim.lsp.get_client_by_id(M.by_root[root])
  if known and not compat.is_stopped(known) then
    vim.lsp.buf_attach_client(bufnr, known.id)
    return known
  end
  local id = compat.start(M.make_config(root, cfg), bufnr)
  if not id then
    return nil, 'catbuddy: could not start ' .. table.concat(cfg.cmd, ' ')
  end
  M.by_root[root] = id
  return vim.lsp.get_client_by_id(id)
end

--- wait_ready waits (up to timeout_ms) until client has initialized.
function M.wait_ready(client, timeout_ms)
  return vim.wait(timeout_ms or 5000, function()
    return client.initialized == true or compat.is_stopped(client)
  end, 10) and not compat.is_stopped(client)
end

return M

-- catbuddy: a coding agent in Neovim, through the cb-ls language server.
-- require('catbuddy').setup(opts); see :help catbuddy.
local client = require('catbuddy.client')
local compat = require('catbuddy.compat')
local config = require('catbuddy.config')
local diagnostics = require('catbuddy.diagnostics')
local range = require('catbuddy.range')
local runs = require('catbuddy.runs')

local M = {}

local function err(msg)
  vim.notify(msg, vim.log.levels.ERROR, { title = 'catbuddy' })
end

--- config returns the resolved configuration (nil before setup).
function M.config()
  return client.cfg
end

local group

--- setup validates opts, defines the :Catbuddy* commands (a plugin manager
--- may never source plugin/catbuddy.lua), and starts cb-ls for the
--- project's buffers as they open (unless autostart = false). Calling it again replaces the
--- options; running clients pick up the settings through
--- workspace/didChangeConfiguration.
function M.setup(opts)
  local cfg, e = config.resolve(opts)
  if not cfg then
    err(e)
    return false
  end
  client.cfg = cfg
  require('catbuddy.commands').define()
  require('catbuddy.diagnostics_request').setup()
  local running = compat.get_clients({ name = client.name })
  for _, c in ipairs(running) do
    compat.notify(c, 'workspace/didChangeConfiguration', { settings = { catbuddy = config.settings(cfg) } })
  end
  require('catbuddy.inline').reconfigure(running, cfg)
  group = vim.api.nvim_create_augroup('catbuddy', { clear = true })
  if cfg.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType' }, {
      group = group,
      callback = function(ev)
        M.attach(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
  return true
end

--- attach starts or reuses the project's client for bufnr when the buffer
--- is a project file; it is quiet when it is not.
function M.attach(bufnr)
  local cfg = client.cfg
  if not cfg or not client.eligible(bufnr, cfg) then
    return nil
  end
  if vim.fn.executable(cfg.cmd[1]) ~= 1 then
    return nil -- :checkhealth catbuddy and the commands say why
  end
  require('catbuddy.pending').attach(bufnr, cfg)
  return client.ensure(bufnr)
end

-- ready returns the buffer's client, started and initialized, or nil
-- after telling the user why not.
local function ready(bufnr)
  local c, e = client.ensure(bufnr)
  if not c then
    err(e)
    return nil
  end
  if not client.wait_ready(c, 10000) then
    err('catbuddy: cb-ls did not start (see :checkhealth catbuddy and :LspLog)')
    return nil
  end
  return c
end

--- run starts an agent run: command is "fix", "explain", "ask" or a
--- custom id; opts has line1, line2, range (as a user command gets) and
--- input. on_result(err, {runId}) is optional.
function M.run(command, opts, on_result)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local c = ready(bufnr)
  if not c then
    return false
  end
  if not opts.line1 then
    local l = vim.api.nvim_win_get_cursor(0)[1]
    opts.line1, opts.line2, opts.range = l, l, 0
  end
  local r = range.from_command(bufnr, opts)
  local arg = {
    command = command,
    uri = vim.uri_from_bufnr(bufnr),
    range = r,
    diagnostics = diagnostics.in_range(bufnr, r.start.line, r['end'].line),
  }
  if opts.input and opts.input ~= '' then
    arg.input = opts.input
  end
  client.execute(c, 'catbuddy.run', arg, bufnr, on_result)
  return true
end

--- accept_completion inserts the inline completion shown in bufnr
--- (default: the current buffer) and returns true, or returns false when
--- none is shown: for a key of your own, e.g. Tab with a fallback.
function M.accept_completion(bufnr)
  return require('catbuddy.inline').accept(bufnr)
end

function M.fix(opts, on_result)
  return M.run('fix', opts, on_result)
end

function M.explain(opts, on_result)
  return M.run('explain', opts, on_result)
end

function M.ask(opts, on_result)
  opts = opts or {}
  if opts.input and opts.input ~= '' then
    return M.run('ask', opts, on_result)
  end
  vim.ui.input({ prompt = 'Ask the agent: ' }, function(text)
    if text and text ~= '' then
      opts.input = text
      M.run('ask', opts, on_result)
    end
  end)
  return true
end

--- cancel cancels the running runs of the buffer's client (all of them
--- when the plugin knows of none, e.g. runs started by code actions).
function M.cancel(bufnr)
  local c = client.get(bufnr or vim.api.nvim_get_current_buf())
  if not c then
    err('catbuddy: no cb-ls client for this buffer')
    return false
  end
  local active = runs.active(c.id)
  local targets = #active > 0 and active or { vim.NIL }
  for _, id in ipairs(targets) do
    local arg = id == vim.NIL and vim.empty_dict() or { runId = id }
    client.execute(c, 'catbuddy.cancel', arg, nil, function(e, result)
      if not e then
        vim.notify(string.format('catbuddy: cancelled %d run(s)', result and result.cancelled or 0), vim.log.levels.INFO)
      end
    end)
  end
  return true
end

--- trust asks the server to trust (true: it asks first, naming what the
--- project wants) or untrust (false) the current buffer's project, and
--- shows the outcome. on_result(err, result) is optional.
function M.trust(yes, on_result)
  local bufnr = vim.api.nvim_get_current_buf()
  local c = client.get(bufnr)
  if not c then
    err('catbuddy: no cb-ls client for this buffer')
    return false
  end
  local name = yes and 'catbuddy.trustProject' or 'catbuddy.untrustProject'
  client.execute(c, name, { uri = vim.uri_from_bufnr(bufnr) }, nil, function(e, result)
    if not e and type(result) == 'table' then
      vim.notify(string.format('catbuddy: %s is %s', result.root or '?', result.trusted and 'trusted' or 'not trusted'), vim.log.levels.INFO)
    end
    if on_result then
      on_result(e, result)
    end
  end)
  return true
end

--- undo puts back every file a run changed (run_id, or the server's last
--- run): the server sends one edit, reviewed like any other, and answers
--- what it restored and what it left alone, which is shown.
--- on_result(err, result) is optional.
function M.undo(run_id, on_result)
  local c = client.get(vim.api.nvim_get_current_buf())
  if not c then
    for _, r in pairs(runs.runs) do
      c = c or vim.lsp.get_client_by_id(r.client_id)
    end
  end
  if not c then
    err('catbuddy: no cb-ls client for this buffer')
    return false
  end
  local arg = run_id and run_id ~= '' and { runId = run_id } or vim.empty_dict()
  client.execute(c, 'catbuddy.undoRun', arg, nil, function(e, result)
    if not e and type(result) == 'table' and result.message then
      vim.notify('catbuddy: ' .. result.message, result.undone and vim.log.levels.INFO or vim.log.levels.WARN)
    end
    if on_result then
      on_result(e, result)
    end
  end)
  return true
end

--- keep keeps the pending hunk under the cursor, or with all every
--- pending hunk of the current buffer (catbuddy.keep).
function M.keep(all, on_done)
  return require('catbuddy.pending').act(true, all, nil, on_done)
end

--- discard undoes (discards) the pending hunk under the cursor, or with all
--- every pending hunk of the current buffer (catbuddy.discard).
function M.discard(all, on_done)
  return require('catbuddy.pending').act(false, all, nil, on_done)
end

--- resolve resolves the conflicted pending hunk under the cursor as
--- choice: "both", "theirs", "run" or "markers" (catbuddy.keep's
--- conflicts); on_done(err, result) when the server answered.
function M.resolve(choice, on_done)
  return require('catbuddy.pending_resolve').resolve(choice, nil, on_done)
end

--- transcript opens the transcript of run_id (a runId of this buffer's
--- server) or of the last run, in a scratch buffer.
function M.transcript(run_id)
  local r
  if run_id then
    local c = client.get(vim.api.nvim_get_current_buf())
    r = c and runs.get(c.id, run_id)
  else
    r = runs.last and runs.runs[runs.last]
    run_id = r and r.id
  end
  local function show(uri)
    local path = uri and vim.uri_to_fname(uri)
    local name = 'catbuddy://transcript/' .. tostring(run_id or 'last')
    if path and vim.fn.filereadable(path) == 1 then
      return runs.open_transcript(name, vim.fn.readfile(path))
    end
    if r then
      return runs.open_transcript(name, runs.render(r))
    end
    err('catbuddy: no transcript yet')
  end
  if r and r.transcript_uri then
    return show(r.transcript_uri)
  end
  local c = client.get(vim.api.nvim_get_current_buf()) or (r and vim.lsp.get_client_by_id(r.client_id))
  if not c then
    return show(nil)
  end
  client.execute(c, 'catbuddy.transcript', run_id and { runId = run_id } or vim.empty_dict(), nil, function(e, result)
    show(not e and type(result) == 'table' and result.uri or nil)
  end)
end

--- commands returns the {id, title} list for :CatbuddyRun completion:
--- the server's (custom commands included: it checks them) or, before it
--- answered, the built-ins.
function M.commands(bufnr)
  local c = client.get(bufnr or vim.api.nvim_get_current_buf())
  if c and client.commands[c.id] then
    return client.commands[c.id]
  end
  if c then
    local res = compat.request_sync(c, 'workspace/executeCommand', { command = 'catbuddy.listCommands', arguments = {} }, 1000)
    if res and res.result then
      client.commands[c.id] = res.result
      return res.result
    end
  end
  return { { id = 'fix', title = 'Agent: Fix This' }, { id = 'explain', title = 'Agent: Explain This' }, { id = 'ask', title = 'Agent: Ask…' } }
end

return M

-- catbuddy.runs: what the plugin knows of agent runs — started by a
-- command, followed through $/progress and catbuddy/runEvent, ended with
-- an answer shown through vim.notify — and the transcript buffer.
local compat = require('catbuddy.compat')

local M = {}

--- runs maps a run's key (client id and runId: each server numbers its
--- runs from r1) -> {key, id, client_id, bufnr, command, title, events,
--- outcome, answer, error, transcript_uri}.
M.runs = {}
--- last is the key of the most recently started run.
M.last = nil

--- key returns the key of run_id of client_id.
function M.key(client_id, run_id)
  return tostring(client_id) .. '/' .. tostring(run_id)
end

--- get returns the run run_id of client_id, or nil.
function M.get(client_id, run_id)
  return M.runs[M.key(client_id, run_id)]
end

local levels = vim.log.levels

-- A server that does not honour catbuddy.runEnd (an older cb-ls) reports a
-- final answer both as a runEvent and as window/showMessage. Whichever
-- comes first is shown and leaves a mark (per client) that the other one
-- consumes, so it is shown once.
local pending = {}

--- show notifies msg. With a client id, a second report of the same text
--- from that client (the other channel) is dropped.
function M.show(msg, level, client_id)
  if msg == nil or msg == '' then
    return
  end
  if client_id ~= nil then
    local k = tostring(client_id) .. '\0' .. msg
    if pending[k] then
      pending[k] = nil
      return
    end
    pending[k] = true
    vim.defer_fn(function()
      pending[k] = nil
    end, 10000)
  end
  vim.notify(msg, level or levels.INFO, { title = 'catbuddy' })
end

local function run_for(id, client_id)
  local k = M.key(client_id, id)
  local r = M.runs[k]
  if not r then
    r = { key = k, id = id, client_id = client_id, events = {} }
    M.runs[k] = r
  end
  return r
end

--- ensure returns the record of run id of client_id, made empty if new
--- (a run picked from catbuddy.listRuns).
M.ensure = run_for

--- started records a run the plugin started (from catbuddy.run's or
--- catbuddy.reply's result).
function M.started(id, client_id, bufnr, command)
  local r = run_for(id, client_id)
  r.bufnr, r.command = bufnr or r.bufnr, command or r.command
  M.last = r.key
  return r
end

--- reply_started is called before catbuddy.reply is sent for run_id and
--- returns the run's record.
function M.reply_started(client_id, run_id)
  if run_id == nil then
    return nil
  end
  return run_for(run_id, client_id)
end

--- active returns the ids of runs of client_id that have not ended.
function M.active(client_id)
  local out = {}
  for _, r in pairs(M.runs) do
    if not r.outcome and (client_id == nil or r.client_id == client_id) then
      out[#out + 1] = r.id
    end
  end
  table.sort(out)
  return out
end

--- on_event handles catbuddy/runEvent.
function M.on_event(params, ctx, cfg)
  -- files_changed outside a run (catbuddy.runTool) has an empty runId.
  if type(params) ~= 'table' or params.runId == nil or params.runId == '' then
    return
  end
  local r = run_for(params.runId, ctx and ctx.client_id)
  r.events[#r.events + 1] = params
  local kind = params.kind
  if kind == 'start' then
    r.command, r.title, r.uri = params.command or r.command, params.title, params.uri
    -- A reply (turn 2…) starts the ended run again.
    r.outcome, r.answer, r.error = nil, nil, nil
    M.last = r.key
  elseif kind == 'end' then
    r.outcome, r.answer, r.error = params.outcome, params.answer, params.error
    r.transcript_uri = params.transcriptUri or r.transcript_uri
    -- The one notification of the run's end: the client declares
    -- catbuddy.runEnd, so the server does not show it too.
    local title = r.title or 'Agent'
    if params.outcome == 'done' then
      M.show(params.answer ~= nil and params.answer ~= '' and params.answer or (title .. ': done (no answer text)'), levels.INFO, r.client_id or 0)
    elseif params.outcome == 'cancelled' then
      M.show(title .. ': ' .. tostring(params.error or 'cancelled'), levels.WARN)
    else
      M.show(title .. ' failed: ' .. tostring(params.error or params.outcome or 'unknown error'), levels.ERROR)
    end
    local p = M.pending_of(r)
    if p then
      M.show(string.format('%s: %d file(s) changed — pending review (:CatbuddyPending)', title, p.files), levels.INFO)
    end
    if cfg.open_transcript and params.transcriptUri and params.outcome ~= 'cancelled' and (params.turn or 1) <= 1 then
      -- silent!: a failing markdown ftplugin (compat.set_filetype) must not
      -- end this handler before CatbuddyRunEnd.
      pcall(vim.cmd, 'silent! split ' .. vim.fn.fnameescape(vim.uri_to_fname(params.transcriptUri)))
    end
    -- User autocmd CatbuddyRunEnd lets statuslines and scripts react.
    local opts = { pattern = 'CatbuddyRunEnd', modeline = false }
    if compat.has('0.8') then
      opts.data = params
    end
    pcall(vim.api.nvim_exec_autocmds, 'User', opts)
  elseif kind == 'tool_result' and params.isError and cfg.notify_progress then
    M.show(string.format('%s: %s', tostring(params.tool), tostring(params.output or 'failed')), levels.WARN)
  end
  local chat = package.loaded['catbuddy.chat']
  if chat then
    chat.on_event(r, params)
  end
end

--- pending_of returns {files, hunks} of r's pending changes, or nil.
function M.pending_of(r)
  for _, p in ipairs(require('catbuddy.pending').summary()) do
    if p.runId == r.id and p.client_id == r.client_id and p.hunks > 0 then
      return p
    end
  end
  return nil
end

--- on_progress shows $/progress begin/report/end for cb-ls's runs.
function M.on_progress(params, cfg)
  if not cfg.notify_progress or type(params) ~= 'table' or type(params.value) ~= 'table' then
    return
  end
  local v = params.value
  local text
  if v.kind == 'begin' then
    text = v.title .. (v.message and (': ' .. v.message) or '')
  elseif v.kind == 'report' then
    text = v.message
  elseif v.kind == 'end' then
    -- The outcome arrives with the runEvent "end"; only show a message the
    -- runEvent would not.
    text = nil
  end
  if text and text ~= '' then
    vim.notify(text, levels.INFO, { title = 'catbuddy' })
  end
end

--- on_file_edit handles catbuddy/fileEdit: failures are shown, the rest
--- goes to the run's events through runEvent already.
function M.on_file_edit(params)
  if type(params) == 'table' and params.phase == 'error' then
    M.show(string.format('%s: %s', vim.fn.fnamemodify(vim.uri_to_fname(params.uri), ':.'), tostring(params.message)), levels.WARN)
  end
end

--- render returns a markdown transcript from the events the plugin saw,
--- used when the server's transcript file cannot be read.
function M.render(r)
  local out = { '# ' .. (r.title or r.command or 'Agent run') .. ' (' .. tostring(r.id) .. ')', '' }
  for _, e in ipairs(r.events) do
    if e.kind == 'text' and e.text then
      vim.list_extend(out, vim.split(e.text, '\n', { plain = true }))
      out[#out + 1] = ''
    elseif e.kind == 'tool_call' then
      out[#out + 1] = string.format('- **%s** `%s`', tostring(e.tool), vim.json.encode(e.args or vim.empty_dict()))
    elseif e.kind == 'tool_result' then
      out[#out + 1] = string.format('  - %s%s', e.isError and 'error: ' or '', (tostring(e.output or ''):gsub('\n.*', ' …')))
    elseif e.kind == 'end' then
      out[#out + 1] = ''
      out[#out + 1] = '**' .. tostring(e.outcome) .. '**' .. (e.error and (': ' .. e.error) or '')
      if e.answer then
        out[#out + 1] = ''
        vim.list_extend(out, vim.split(e.answer, '\n', { plain = true }))
      end
      local p = M.pending_of(r)
      if p then
        out[#out + 1] = ''
        out[#out + 1] = string.format('_%d file(s) changed — %d hunk(s) pending review: keep or undo them in the buffers, or :CatbuddyPending._', p.files, p.hunks)
      end
    end
  end
  return out
end

--- open_transcript shows lines in a scratch markdown buffer in a split.
function M.open_transcript(name, lines)
  local buf
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      buf = b
    end
  end
  if not buf then
    buf = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.api.nvim_buf_set_option(buf, 'modifiable', true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'modified', false)
  compat.set_filetype(buf, 'markdown')
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

return M

-- catbuddy.pending: a run's pending changes, drawn in the buffers they
-- concern. The server owns every rule (what is pending, where each hunk is
-- now, whether it is in conflict); this module keeps the last
-- catbuddy/pendingChanges of each run, draws it, and sends catbuddy.keep /
-- catbuddy.discard. A pending hunk is not in the buffer: the buffer holds
-- the user's text, so the lines a hunk replaces are highlighted as removed
-- and the lines keeping it would put in are shown as virtual lines below
-- them (added), with a sign on each line of the hunk.
local M = {}

M.ns = vim.api.nvim_create_namespace('catbuddy_pending')

--- sets maps client id -> runId -> {runId, title, files} (the notification).
M.sets = {}

-- keeping counts the keeps in flight: the workspace/applyEdit a keep causes
-- carries no needsConfirmation and is applied without the review window.
M.keeping = 0

local levels = vim.log.levels
local flags = require('catbuddy.pending_flags')

local function title_of(client_id, run_id)
  local r = require('catbuddy.runs').get(client_id, run_id)
  return r and r.title or run_id
end

--- hunks returns every pending hunk of uri, sorted by line: {client_id,
--- run_id, title, id, first, last (0-based, last exclusive), new_text,
--- label, conflict, whole, notes}: notes are the file's flags
--- ("runs later: …", "not kept: …"); a whole-file item is one hunk on
--- line 0 with no lines of its own (first == last, no new text).
function M.hunks(uri)
  local out = {}
  for cid, runs in pairs(M.sets) do
    for run_id, set in pairs(runs) do
      for _, f in ipairs(set.files or {}) do
        if f.uri == uri and type(f.hunks) == 'table' then
          local notes = flags.notes(f)
          for _, h in ipairs(f.hunks) do
            local s, e = h.range.start, h.range['end']
            local last = e.character > 0 and e.line + 1 or e.line
            if f.whole then
              s, last = { line = 0 }, 0
            end
            out[#out + 1] = {
              client_id = cid,
              run_id = run_id,
              title = set.title or title_of(cid, run_id),
              id = h.id,
              first = s.line,
              last = math.max(s.line, last),
              new_text = h.newText or '',
              label = h.label,
              conflict = h.conflict,
              whole = f.whole and true or nil,
              notes = notes,
            }
          end
        end
      end
    end
  end
  table.sort(out, function(a, b)
    if a.first ~= b.first then
      return a.first < b.first
    end
    return a.run_id < b.run_id
  end)
  return out
end

--- count is the number of pending hunks (a group counts one) of every run.
function M.count()
  local n = 0
  for _, runs in pairs(M.sets) do
    for _, set in pairs(runs) do
      for _, f in ipairs(set.files or {}) do
        n = n + (f.group and 1 or #(f.hunks or {}))
      end
    end
  end
  return n
end

-- drawn maps bufnr -> key (run, hunk id) -> {sig, marks}: what is on
-- screen. Extmarks move with the text, so after a keystroke the server's
-- new ranges mostly match where the marks already are: only hunks that
-- moved differently, changed or went away are redrawn.
local drawn = {}

local function new_lines(text)
  if text == nil or text == '' then
    return {}
  end
  return vim.split(text:gsub('\n$', ''), '\n', { plain = true })
end

local function place(bufnr, h, n, show_title)
  local marks = {}
  local flagged = #(h.notes or {}) > 0
  local sign_hl = (h.conflict or flagged) and 'DiagnosticWarn' or 'DiffChange'
  for l = h.first, math.min(h.last, n) - 1 do
    marks[#marks + 1] = vim.api.nvim_buf_set_extmark(bufnr, M.ns, l, 0, {
      line_hl_group = 'DiffDelete',
      sign_text = h.conflict and '!' or '-',
      sign_hl_group = sign_hl,
      priority = 200,
    })
  end
  local virt = {}
  local head = (show_title and ('[' .. h.title .. '] ') or '') .. (h.conflict and ('conflict: ' .. h.conflict) or '')
  if head ~= '' then
    virt[#virt + 1] = { { head, h.conflict and 'DiagnosticWarn' or 'Comment' } }
  end
  -- What keeping it does, before the user keeps it.
  for _, note in ipairs(h.notes or {}) do
    virt[#virt + 1] = { { '! ' .. note, 'DiagnosticWarn' } }
  end
  if h.whole then
    -- Not text: its label says what it is (a size, a link's target).
    virt[#virt + 1] = { { '+ ' .. (h.label or 'whole file'), 'DiffAdd' } }
  end
  for _, line in ipairs(h.whole and {} or new_lines(h.new_text)) do
    virt[#virt + 1] = { { '+ ' .. line, 'DiffAdd' } }
  end
  if #virt > 0 then
    -- Below the replaced lines; above the first line for an insertion
    -- (virt_lines cannot go above line 0 otherwise).
    local at, above = h.last - 1, false
    if h.last == h.first then
      at, above = h.first, true
    end
    if at >= n then
      at, above = n - 1, false
    end
    marks[#marks + 1] = vim.api.nvim_buf_set_extmark(bufnr, M.ns, math.max(at, 0), 0, {
      virt_lines = virt,
      virt_lines_above = above,
      -- An insertion has no line of its own: this is its sign, "!" like
      -- every conflict's.
      sign_text = h.last == h.first and ((h.conflict or flagged) and '!' or '+') or nil,
      sign_hl_group = sign_hl,
    })
  end
  return marks
end

--- reset forgets what is drawn in bufnr and draws it again: after a reload
--- (:e) the text is read anew and the marks that survived it are wherever
--- the reload left them.
function M.reset(bufnr)
  drawn[bufnr] = nil
  M.draw(bufnr)
end

--- draw redraws the pending hunks of bufnr.
function M.draw(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local n = vim.api.nvim_buf_line_count(bufnr)
  local runs = 0
  for _, sets in pairs(M.sets) do
    for _ in pairs(sets) do
      runs = runs + 1
    end
  end
  local show_title = runs > 1
  if not drawn[bufnr] then
    -- Nothing is known to be on screen (first draw, or the buffer was
    -- detached, as :e does): marks left in the namespace would be drawn
    -- twice.
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
  local old = drawn[bufnr] or {}
  local now = {}
  for _, h in ipairs(M.hunks(vim.uri_from_bufnr(bufnr))) do
    local key = h.client_id .. '/' .. h.run_id .. '/' .. h.id
    local sig = table.concat({ h.last - h.first, h.new_text, h.conflict or '', show_title and h.title or '', h.label or '', table.concat(h.notes or {}, '\n') }, '\0')
    local d = old[key]
    old[key] = nil
    if d and d.sig == sig and d.first_mark then
      local pos = vim.api.nvim_buf_get_extmark_by_id(bufnr, M.ns, d.first_mark, {})
      if pos[1] ~= d.offset + h.first then
        for _, id in ipairs(d.marks) do
          vim.api.nvim_buf_del_extmark(bufnr, M.ns, id)
        end
        d = nil
      end
    elseif d then
      for _, id in ipairs(d.marks) do
        vim.api.nvim_buf_del_extmark(bufnr, M.ns, id)
      end
      d = nil
    end
    if not d then
      local marks = place(bufnr, h, n, show_title)
      local first = marks[1] and vim.api.nvim_buf_get_extmark_by_id(bufnr, M.ns, marks[1], {})
      d = { sig = sig, marks = marks, first_mark = marks[1], offset = first and first[1] and (first[1] - h.first) or 0 }
    end
    now[key] = d
  end
  for _, d in pairs(old) do
    for _, id in ipairs(d.marks) do
      vim.api.nvim_buf_del_extmark(bufnr, M.ns, id)
    end
  end
  drawn[bufnr] = now
end

local function redraw_all()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      M.draw(b)
    end
  end
  local n = M.count()
  if vim.g.catbuddy_pending ~= n then
    vim.g.catbuddy_pending = n
    pcall(vim.cmd, 'redrawstatus')
  end
end

--- on_notification handles catbuddy/pendingChanges from client_id.
function M.on_notification(params, client_id)
  if type(params) ~= 'table' or type(params.runId) ~= 'string' then
    return
  end
  M.sets[client_id] = M.sets[client_id] or {}
  local files = type(params.files) == 'table' and params.files or {}
  if #files == 0 then
    M.sets[client_id][params.runId] = nil
  else
    local prev = M.sets[client_id][params.runId]
    M.sets[client_id][params.runId] = { runId = params.runId, files = files, title = params.title or (prev and prev.title) }
  end
  redraw_all()
end

--- at returns the pending hunk of bufnr at 0-based row, or nil.
function M.at(bufnr, row)
  for _, h in ipairs(M.hunks(vim.uri_from_bufnr(bufnr))) do
    if (row >= h.first and row < h.last) or (h.first == h.last and (row == h.first or row == h.first - 1)) then
      return h
    end
  end
  return nil
end

local function client_for(client_id)
  return vim.lsp.get_client_by_id(client_id)
end

local function report(what, err, result)
  if err then
    vim.notify('catbuddy: ' .. what .. ': ' .. tostring(err.message or err), levels.ERROR)
    return
  end
  result = type(result) == 'table' and result or {}
  local n = #(result.kept or result.discarded or {})
  local msg = string.format('catbuddy: %s %d hunk(s)', what == 'catbuddy.keep' and 'kept' or 'undid', n)
  local level = levels.INFO
  for _, l in ipairs(result.left or {}) do
    msg = msg .. '\n' .. tostring(l.hunk) .. ' left pending: ' .. tostring(l.reason)
    level = levels.WARN
  end
  vim.notify(msg, level)
end

-- send runs command for each run's selection: by_run maps client id ->
-- runId -> {files, hunks}.
local function send(command, by_run, on_done)
  local todo = 0
  for cid, runs in pairs(by_run) do
    for run_id, sel in pairs(runs) do
      local c = client_for(cid)
      if c then
        todo = todo + 1
        local arg = { runId = run_id, files = sel.files, hunks = sel.hunks }
        if command == 'catbuddy.keep' then
          M.keeping = M.keeping + 1
        end
        require('catbuddy.compat').request(c, 'workspace/executeCommand', { command = command, arguments = { arg } }, function(err, result)
          if command == 'catbuddy.keep' then
            M.keeping = math.max(0, M.keeping - 1)
          end
          report(command, err, result)
          todo = todo - 1
          if todo == 0 and on_done then
            on_done()
          end
        end)
      end
    end
  end
  if todo == 0 then
    vim.notify('catbuddy: no pending change here', levels.WARN)
  end
  return todo > 0
end

--- act keeps (keep = true) or discards the hunk under the cursor of bufnr,
--- or, with all, every pending hunk of bufnr.
function M.act(keep, all, bufnr, on_done)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local by_run = {}
  local function add(cid, run_id, field, v)
    by_run[cid] = by_run[cid] or {}
    by_run[cid][run_id] = by_run[cid][run_id] or {}
    local sel = by_run[cid][run_id]
    sel[field] = sel[field] or {}
    table.insert(sel[field], v)
  end
  if all then
    local uri = vim.uri_from_bufnr(bufnr)
    for _, h in ipairs(M.hunks(uri)) do
      add(h.client_id, h.run_id, 'files', uri)
    end
    for _, runs in pairs(by_run) do
      for _, sel in pairs(runs) do
        sel.files = { uri }
      end
    end
  else
    local h = M.at(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
    if h then
      add(h.client_id, h.run_id, 'hunks', h.id)
    end
  end
  return send(keep and 'catbuddy.keep' or 'catbuddy.discard', by_run, on_done)
end

--- jump moves the cursor to the next (dir 1) or previous (-1) pending hunk.
function M.jump(dir)
  local bufnr = vim.api.nvim_get_current_buf()
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  local hs = M.hunks(vim.uri_from_bufnr(bufnr))
  local target
  if dir > 0 then
    for _, h in ipairs(hs) do
      if h.first > row then
        target = h
        break
      end
    end
  else
    for i = #hs, 1, -1 do
      if hs[i].first < row then
        target = hs[i]
        break
      end
    end
  end
  if target then
    local last = math.max(vim.api.nvim_buf_line_count(bufnr) - 1, 0)
    vim.api.nvim_win_set_cursor(0, { math.min(target.first, last) + 1, 0 })
  end
  return target ~= nil
end

-- run_names maps client id -> runId -> the name the quickfix list gives
-- the run: its title (the set's, else the run's), with its id when another
-- run has the same title; the id only for a run with no title at all.
local function run_names()
  local titles, uses = {}, {}
  for cid, runs in pairs(M.sets) do
    titles[cid] = {}
    for run_id, set in pairs(runs) do
      local t = set.title or title_of(cid, run_id)
      titles[cid][run_id] = t
      uses[t] = (uses[t] or 0) + 1
    end
  end
  for _, runs in pairs(titles) do
    for run_id, t in pairs(runs) do
      if t ~= run_id and uses[t] > 1 then
        runs[run_id] = t .. ' (' .. run_id .. ')'
      end
    end
  end
  return titles
end

--- quickfix fills the quickfix list with every pending hunk, each named
--- by its run's title.
function M.quickfix()
  local items = {}
  local names = run_names()
  for cid, runs in pairs(M.sets) do
    for run_id, set in pairs(runs) do
      local name = names[cid][run_id]
      for _, f in ipairs(set.files or {}) do
        local fname = vim.uri_to_fname(f.uri)
        local notes = flags.suffix(f)
        if f.group then
          items[#items + 1] = { filename = fname, lnum = 1, text = string.format('[%s] %s: %d files (%s)%s', name, f.path, f.group.count or 0, f.kind, notes), type = notes ~= '' and 'W' or nil }
        end
        if f.whole then
          -- One entry: the label says what it is; it has no lines.
          items[#items + 1] = { filename = fname, lnum = 1, text = string.format('[%s] %s%s', name, flags.whole_label(f), notes), type = notes ~= '' and 'W' or nil }
        end
        for _, h in ipairs(f.whole and {} or f.hunks or {}) do
          items[#items + 1] = {
            filename = fname,
            lnum = h.range.start.line + 1,
            text = string.format('[%s] %s%s%s', name, h.label or f.path, h.conflict and (' (conflict: ' .. h.conflict .. ')') or '', notes),
            type = (h.conflict or notes ~= '') and 'W' or nil,
          }
        end
      end
    end
  end
  vim.fn.setqflist({}, ' ', { title = 'Catbuddy pending changes', items = items })
  return #items
end

--- summary lists the runs with pending changes: {runId, title, hunks}.
function M.summary()
  local out = {}
  for cid, runs in pairs(M.sets) do
    for run_id, set in pairs(runs) do
      local n = 0
      for _, f in ipairs(set.files or {}) do
        n = n + (f.group and 1 or #(f.hunks or {}))
      end
      out[#out + 1] = { client_id = cid, runId = run_id, title = set.title or title_of(cid, run_id), hunks = n, files = #set.files }
    end
  end
  table.sort(out, function(a, b)
    return a.runId < b.runId
  end)
  return out
end

--- statusline is a statusline component: "⊕ 3 pending" or "".
function M.statusline()
  local n = M.count()
  return n > 0 and (n .. ' pending') or ''
end

--- refresh asks client_id's server for every pending set as it is now
--- (catbuddy.pendingChanges: ranges over the buffers' current text,
--- conflicts with the user's typing) and draws the answer.
function M.refresh(client_id, on_done)
  local c = client_for(client_id)
  if not c then
    return
  end
  require('catbuddy.compat').request(c, 'workspace/executeCommand', { command = 'catbuddy.pendingChanges', arguments = { vim.empty_dict() } }, function(err, result)
    if not err and type(result) == 'table' and type(result.runs) == 'table' then
      local seen = {}
      for _, r in ipairs(result.runs) do
        seen[r.runId] = true
        M.on_notification(r, client_id)
      end
      for run_id in pairs(M.sets[client_id] or {}) do
        if not seen[run_id] then
          M.on_notification({ runId = run_id, files = {} }, client_id)
        end
      end
    end
    if on_done then
      on_done(err)
    end
  end)
end

-- typed counts each buffer's changes, so that only the last change of a
-- burst of typing asks for the hunks again.
local typed = {}

-- on_typed schedules a refresh of the servers with hunks in bufnr, once the
-- typing paused: the hunks' ranges and conflicts are the server's to say.
local function on_typed(bufnr)
  local hs = M.hunks(vim.uri_from_bufnr(bufnr))
  if #hs == 0 then
    return
  end
  typed[bufnr] = (typed[bufnr] or 0) + 1
  local mine = typed[bufnr]
  vim.defer_fn(function()
    if typed[bufnr] ~= mine then
      return
    end
    local done = {}
    for _, h in ipairs(hs) do
      if not done[h.client_id] then
        done[h.client_id] = true
        M.refresh(h.client_id)
      end
    end
  end, M.refresh_delay_ms)
end

--- refresh_delay_ms is the pause in typing after which the hunks of the
--- buffer are asked for again.
M.refresh_delay_ms = 300

local mapped = {}

--- attach sets bufnr's keymaps (cfg.keymaps; a key set to false is left
--- alone) and draws what is pending there.
function M.attach(bufnr, cfg)
  if not mapped[bufnr] then
    mapped[bufnr] = true
    local km = cfg and cfg.keymaps or {}
    local function map(lhs, fn, desc)
      if type(lhs) == 'string' and lhs ~= '' then
        vim.keymap.set('n', lhs, fn, { buffer = bufnr, desc = 'Agent: ' .. desc })
      end
    end
    map(km.keep, function() M.act(true, false, bufnr) end, 'keep the pending hunk under the cursor')
    map(km.undo, function() M.act(false, false, bufnr) end, 'undo (discard) the pending hunk under the cursor')
    map(km.keep_all, function() M.act(true, true, bufnr) end, "keep every pending hunk of this buffer")
    map(km.undo_all, function() M.act(false, true, bufnr) end, "undo every pending hunk of this buffer")
    -- A conflicted hunk's ways out (catbuddy.pending_resolve).
    for _, choice in ipairs({ 'both', 'theirs', 'run', 'markers' }) do
      map(km['resolve_' .. choice], function() require('catbuddy.pending_resolve').resolve(choice, bufnr) end, 'resolve the conflicted hunk under the cursor: ' .. choice)
    end
    -- Without a pending hunk to go to, ]c and [c do what they always do
    -- (the next change in diff mode).
    map(km.next_hunk, function()
      if not M.jump(1) then
        vim.cmd('normal! ' .. vim.v.count1 .. ']c')
      end
    end, 'next pending hunk')
    map(km.prev_hunk, function()
      if not M.jump(-1) then
        vim.cmd('normal! ' .. vim.v.count1 .. '[c')
      end
    end, 'previous pending hunk')
    local group = vim.api.nvim_create_augroup('catbuddy_pending', { clear = false })
    vim.api.nvim_clear_autocmds({ group = group, buffer = bufnr })
    vim.api.nvim_create_autocmd('BufReadPost', {
      group = group,
      buffer = bufnr,
      callback = function()
        M.reset(bufnr)
      end,
    })
    vim.api.nvim_buf_attach(bufnr, false, {
      on_lines = function()
        vim.schedule(function()
          on_typed(bufnr)
        end)
      end,
      on_detach = function()
        mapped[bufnr] = nil
        drawn[bufnr] = nil
      end,
    })
  end
  M.draw(bufnr)
end

--- forget drops what client_id sent (the client stopped).
function M.forget(client_id)
  M.sets[client_id] = nil
  redraw_all()
end

return M

-- Benchmarks of the plugin's own work on a large buffer (no server):
--   nvim --headless --clean -n -u NONE -c 'luafile tests/bench.lua'
-- preview (scratch copy + apply_text_edits + unified diff) of a one-line
-- edit.
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(here, ':h'))
vim.o.swapfile = false
local uv = vim.uv or vim.loop
local changes = require('catbuddy.changes')

local function bench(name, n, fn)
  fn() -- warm up
  local t0 = uv.hrtime()
  for _ = 1, n do
    fn()
  end
  local per = (uv.hrtime() - t0) / n / 1e6
  io.stdout:write(string.format('%-44s %8.2f ms/op  (%d ops)\n', name, per, n))
end

for _, size in ipairs({ 1000, 10000 }) do
  local lines = {}
  for i = 1, size do
    lines[i] = string.format('\tx%d := compute(%d, "%s") // line %d', i, i, string.rep('a', 20), i)
  end
  local path = vim.fn.tempname() .. '.go'
  vim.fn.writefile(lines, path)
  vim.cmd('edit ' .. path)
  local mid = math.floor(size / 2)
  local edit = {
    documentChanges = {
      { textDocument = { uri = vim.uri_from_fname(path) }, edits = { { range = { start = { line = mid, character = 1 }, ['end'] = { line = mid, character = 3 } }, newText = 'y' } } },
    },
  }
  bench(string.format('preview one-line edit, %d lines', size), 20, function()
    assert(changes.preview(edit, 'utf-16'))
  end)
  vim.cmd('bwipe!')
end

-- The settle of a catbuddy/diagnostics answer with the real clock: how long
-- after a DiagnosticChanged (published 100 ms after the edit) the answer
-- comes, and how long an answer waits when the diagnostics never change
-- (the quiet period). Medians.
local request = require('catbuddy.diagnostics_request')
request.setup()
local function median(xs)
  table.sort(xs)
  return xs[math.floor((#xs + 1) / 2)]
end
do
  local path = vim.fn.tempname() .. '.go'
  vim.fn.writefile({ 'package a', 'var X = 1' }, path)
  vim.cmd('edit ' .. path)
  local b = vim.api.nvim_get_current_buf()
  local params = { uri = vim.uri_from_fname(path), settle = { quietMs = 750, capMs = 2000 } }
  request.answer(params) -- follows the buffer from now on
  local ns = vim.api.nvim_create_namespace('catbuddy-bench-settle')
  local after_change, quiet = {}, {}
  for i = 1, 10 do
    vim.api.nvim_buf_set_lines(b, 1, 2, false, { 'var X = ' .. i })
    local published
    vim.defer_fn(function()
      published = uv.hrtime()
      vim.diagnostic.set(ns, b, { { lnum = 1, col = 4, message = 'X is ' .. i, severity = 1 } })
    end, 100)
    request.answer(params)
    after_change[#after_change + 1] = (uv.hrtime() - published) / 1e6
  end
  for i = 1, 3 do
    vim.api.nvim_buf_set_lines(b, 1, 2, false, { 'var X = quiet' .. i })
    local t0 = uv.hrtime()
    request.answer(params)
    quiet[#quiet + 1] = (uv.hrtime() - t0) / 1e6
  end
  io.stdout:write(string.format('%-44s %8.2f ms median (10 answers)\n', 'settle: answer after DiagnosticChanged', median(after_change)))
  io.stdout:write(string.format('%-44s %8.2f ms median (3 answers; quiet period %d ms)\n', 'settle: answer with no diagnostics change', median(quiet), params.settle.quietMs))
  vim.cmd('bwipe!')
end
-- The pending-changes update per keystroke, the whole path a keystroke
-- takes in a file with pending hunks: the buffer change (the plugin's
-- on_lines handler and its scheduled follow-up), the server's
-- catbuddy/pendingChanges with the run's hunks over the new text (decoded
-- from JSON as the LSP client does, then handled: the marks that did not
-- follow the text are placed again) and the screen redraw of the window's
-- lines, extmarks, virtual lines and signs. 200 hunks in a 5,000-line file,
-- the cursor among them in a 50-line window; a character typed per
-- keystroke, and every tenth keystroke a new line (every hunk below moves).
-- Median and 90th percentile of 300 keystrokes, wall time and CPU time
-- (on a loaded machine the wall time includes waiting for a core).
do
  vim.o.lines, vim.o.columns = 52, 120
  vim.o.number, vim.o.signcolumn = true, 'yes'
  local pending = require('catbuddy.pending')
  local lines = {}
  for i = 1, 5000 do
    lines[i] = string.format('\tx%d := compute(%d) // line %d', i, i, i)
  end
  local path = vim.fn.tempname() .. '.go'
  vim.fn.writefile(lines, path)
  vim.cmd('edit ' .. path)
  local b = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(b)
  local hunks = {}
  for i = 1, 200 do
    local l = i * 25 - 1
    hunks[i] = {
      id = 'h' .. i,
      range = { start = { line = l, character = 0 }, ['end'] = { line = l + 1, character = 0 } },
      oldText = lines[l + 1] .. '\n',
      newText = lines[l + 1]:gsub('compute', 'computeFast') .. '\n',
      label = 'line ' .. (l + 1),
    }
  end
  local function notification()
    return vim.json.encode({ runId = 'r1', files = { { uri = uri, path = 'x.go', kind = 'changed', hunks = hunks } } })
  end
  pending.attach(b, require('catbuddy.config').defaults)
  pending.on_notification(vim.json.decode(notification()), 1)
  local row = 2520 -- 0-based: typing on line 2521, hunks at 2524, 2549, …
  vim.api.nvim_win_set_cursor(0, { row + 1, 0 })
  vim.cmd('normal! zt')
  vim.cmd('redraw')
  local function cpu()
    local r = uv.getrusage()
    return (r.utime.sec + r.stime.sec) * 1e3 + (r.utime.usec + r.stime.usec) / 1e3
  end
  local times, cpus = {}, {}
  for k = 1, 301 do
    local json
    if k % 10 == 0 then
      -- Enter: a new line above the one typed on, and every hunk below
      -- one line down.
      for _, h in ipairs(hunks) do
        if h.range.start.line >= row then
          h.range.start.line = h.range.start.line + 1
          h.range['end'].line = h.range['end'].line + 1
        end
      end
    end
    json = notification() -- the server's work, not timed
    local t0, c0 = uv.hrtime(), cpu()
    if k % 10 == 0 then
      vim.api.nvim_buf_set_lines(b, row, row, false, { '' })
    else
      vim.api.nvim_buf_set_text(b, row, 0, row, 0, { 'a' })
    end
    local flushed = false
    vim.schedule(function()
      flushed = true
    end)
    vim.wait(1000, function()
      return flushed
    end, 1)
    pending.on_notification(vim.json.decode(json), 1)
    vim.cmd('redraw')
    if k > 1 then
      times[#times + 1] = (uv.hrtime() - t0) / 1e6
      cpus[#cpus + 1] = cpu() - c0
    end
  end
  -- The redraw drew the hunks: the window shows a hunk's virtual line.
  local screen = {}
  for r = 1, vim.o.lines - 2 do
    for c = 1, vim.o.columns do
      screen[#screen + 1] = vim.fn.screenstring(r, c)
    end
  end
  if not table.concat(screen):find('computeFast', 1, true) then
    io.stdout:write('pending: no hunk on the screen\n')
    vim.cmd('cquit! 1')
  end
  table.sort(times)
  table.sort(cpus)
  local p90 = math.floor(#times * 0.9)
  io.stdout:write(string.format('%-44s %8.2f ms median, %.2f ms p90; CPU %.2f ms median, %.2f ms p90 (%d keystrokes)\n',
    'pending: keystroke, 200 hunks, 5,000 lines', median(times), times[p90], median(cpus), cpus[p90], #times))
  vim.cmd('bwipe!')
end
vim.cmd('qall!')

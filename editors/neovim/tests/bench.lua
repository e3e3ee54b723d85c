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
-- The pending-changes update per keystroke: after each keystroke in a file
-- with pending hunks the server sends the run's hunks again (moved over the
-- typing), and the plugin redraws them. 200 hunks in a 5,000-line file, a
-- character typed then the notification handled; median of 100.
do
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
  local note = { runId = 'r1', files = { { uri = uri, path = 'x.go', kind = 'changed', hunks = hunks } } }
  local times = {}
  for i = 1, 101 do
    vim.api.nvim_buf_set_text(b, 0, 0, 0, 0, { 'a' })
    local t0 = uv.hrtime()
    pending.on_notification(note, 1)
    if i > 1 then
      times[#times + 1] = (uv.hrtime() - t0) / 1e6
    end
  end
  io.stdout:write(string.format('%-44s %8.2f ms median (100 keystrokes)\n', 'pending: redraw 200 hunks, 5,000 lines', median(times)))
  vim.cmd('bwipe!')
end
vim.cmd('qall!')

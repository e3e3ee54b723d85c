-- Benchmarks of the plugin's own work on a large buffer (no server):
--   nvim --headless --clean -n -u NONE -c 'luafile tests/bench.lua'
-- preview (scratch copy + apply_text_edits + unified diff) of a one-line
-- edit, the line rebase of a stale edit, and the cost a snapshot adds to
-- each change while a run is active.
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(here, ':h'))
vim.o.swapfile = false
local uv = vim.uv or vim.loop
local changes = require('catbuddy.changes')
local rebase = require('catbuddy.rebase')
local snapshots = require('catbuddy.snapshots')

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
  local b = vim.api.nvim_get_current_buf()
  local mid = math.floor(size / 2)
  local edit = {
    documentChanges = {
      { textDocument = { uri = vim.uri_from_fname(path) }, edits = { { range = { start = { line = mid, character = 1 }, ['end'] = { line = mid, character = 3 } }, newText = 'y' } } },
    },
  }
  bench(string.format('preview one-line edit, %d lines', size), 20, function()
    assert(changes.preview(edit, 'utf-16'))
  end)
  local base = table.concat(lines, '\n') .. '\n'
  local mine_lines = vim.deepcopy(lines)
  table.insert(mine_lines, 1, '// typed')
  local mine = table.concat(mine_lines, '\n') .. '\n'
  local their_lines = vim.deepcopy(lines)
  their_lines[mid + 1] = 'changed'
  local theirs = table.concat(their_lines, '\n') .. '\n'
  bench(string.format('rebase plan, %d lines', size), 20, function()
    assert(rebase.plan(base, mine, theirs))
  end)
  bench(string.format('keystroke without snapshots, %d lines', size), 200, function()
    vim.api.nvim_buf_set_lines(b, 0, 1, false, { 'a' .. tostring(uv.hrtime()) })
  end)
  snapshots.start(b)
  -- A change every loop turn for 200 turns; snapshots come after quiet spells.
  bench(string.format('keystroke with snapshots, %d lines', size), 200, function()
    vim.api.nvim_buf_set_lines(b, 0, 1, false, { 'a' .. tostring(uv.hrtime()) })
  end)
  snapshots.stop(b)
  vim.cmd('bwipe!')
end
vim.cmd('qall!')

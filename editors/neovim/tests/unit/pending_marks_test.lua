-- How pending hunks are drawn in a buffer that is reloaded, and how a
-- conflict is marked.
local pending = require('catbuddy.pending')
local config = require('catbuddy.config')

local function marks(buf)
  return vim.api.nvim_buf_get_extmarks(buf, pending.ns, 0, -1, { details = true })
end

-- open writes lines to a fresh calc.go, opens it and attaches the pending
-- view as the plugin does for a project file; it returns buffer and URI.
local function open(H, lines)
  local path = H.tmpdir() .. '/calc.go'
  vim.fn.writefile(lines, path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  pending.attach(buf, assert(config.resolve({})))
  return buf, vim.uri_from_bufnr(buf)
end

local function hunk(id, first, last, new_text, conflict)
  return {
    id = id,
    range = { start = { line = first, character = 0 }, ['end'] = { line = last, character = 0 } },
    newText = new_text,
    label = 'calc.go: ' .. id,
    conflict = conflict,
  }
end

-- opts records the options each pending mark was set with, while a test
-- runs under recording(): Neovim 0.7 does not report sign_text in an
-- extmark's details (0.10 does). The API is restored after the test.
local opts = {}
local function recording(fn)
  return function()
    local set_extmark = vim.api.nvim_buf_set_extmark
    opts = {}
    vim.api.nvim_buf_set_extmark = function(buf, ns, row, col, o)
      local id = set_extmark(buf, ns, row, col, o)
      if ns == pending.ns then
        opts[id] = o
      end
      return id
    end
    local ok, err = xpcall(fn, debug.traceback)
    vim.api.nvim_buf_set_extmark = set_extmark
    if not ok then
      error(err, 0)
    end
  end
end

-- sign_of returns the sign and its highlight of mark m (a details list).
local function sign_of(m)
  local o = opts[m[1]] or {}
  return m[4].sign_text or o.sign_text, m[4].sign_hl_group or o.sign_hl_group
end

-- signs lists "row:sign" of every mark with a sign, sorted.
local function signs(buf)
  local out = {}
  for _, m in ipairs(marks(buf)) do
    local s = sign_of(m)
    if s then
      out[#out + 1] = m[2] .. ':' .. vim.trim(s)
    end
  end
  table.sort(out)
  return out
end

return function(H)
  H.test('pending: :e on a buffer with pending hunks draws each hunk once', recording(function()
    pending.sets = {}
    local buf, uri = open(H, { 'package calc', '', 'func A() {}', 'func B() {}' })
    local n = {
      runId = 'r1',
      title = 'Fix calc',
      files = { { uri = uri, path = 'calc.go', kind = 'changed', hunks = { hunk('h1', 2, 3, 'func A() int { return 1 }\n'), hunk('h2', 4, 4, 'func C() {}\n') } } },
    }
    pending.on_notification(n, 911)
    local before = signs(buf)
    local count = #marks(buf)
    H.eq({ '2:-', '3:+' }, before, 'drawn once before the reload')
    vim.cmd('edit')
    -- What follows a reload: BufReadPost attaches the buffer again and the
    -- server sends the set again (didOpen).
    pending.attach(buf, assert(config.resolve({})))
    pending.on_notification(n, 911)
    H.eq(before, signs(buf), 'signs after :e')
    H.eq(count, #marks(buf), 'marks after :e')
    -- And the view still follows the server after the reload.
    pending.on_notification({ runId = 'r1', files = {} }, 911)
    H.eq({}, marks(buf), 'a cleared set leaves no mark after :e')
    vim.cmd('bwipeout!')
  end))

  H.test('pending: a conflict is marked ! (replaced lines and insertions), never +', recording(function()
    pending.sets = {}
    local buf, uri = open(H, { 'package calc', '', 'func A() {}', 'func B() {}' })
    pending.on_notification({
      runId = 'r1',
      title = 'Fix calc',
      files = { { uri = uri, path = 'calc.go', kind = 'changed', hunks = {
        hunk('h1', 2, 3, 'func A() int { return 1 }\n', 'your typing touches its lines'),
        hunk('h2', 4, 4, 'func C() {}\n', 'your typing touches its lines'),
      } } },
    }, 912)
    H.eq({ '2:!', '3:!' }, signs(buf), 'conflict signs')
    local warned = 0
    for _, m in ipairs(marks(buf)) do
      local sign, hl = sign_of(m)
      if sign then
        H.eq('DiagnosticWarn', hl, 'sign highlight of row ' .. m[2])
        warned = warned + 1
      end
    end
    H.eq(2, warned, 'both signs warn')
    pending.on_notification({ runId = 'r1', files = {} }, 912)
    vim.cmd('bwipeout!')
  end))
end

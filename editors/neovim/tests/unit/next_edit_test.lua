-- catbuddy.next_edit without a server: which hunk the key keeps (a
-- "nes-" one on or next to the cursor's line, never a run's), and that
-- the key is Neovim's (or the user's mapping) everywhere else, in normal
-- and insert mode; the next_edit option and what cb-ls is sent.
local config = require('catbuddy.config')
local pending = require('catbuddy.pending')
local next_edit = require('catbuddy.next_edit')
local inline = require('catbuddy.inline')

local LINES = { 'package calc', '', 'func Scale(x, y int) (int, int) {', '\tsx := x * 3', '\tsy := y * 2', '\treturn sx, sy', '}', '', '// end' }

-- buffer opens a file with LINES, its cursor at row (1-based), and sends
-- the notifications as client 7; it returns the buffer and its URI.
local function buffer(H, row, notifications)
  local path = H.write(H.tmpdir() .. '/scale.go', LINES)
  vim.cmd('edit! ' .. vim.fn.fnameescape(path))
  local b = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  local uri = vim.uri_from_bufnr(b)
  pending.sets = {}
  for _, n in ipairs(notifications(uri)) do
    pending.on_notification(n, 7)
  end
  return b, uri
end

local function hunk(uri, run_id, first, last, old, new)
  return { runId = run_id, files = { { uri = uri, path = 'scale.go', kind = 'changed', hunks = { {
    id = run_id .. '.1', range = { start = { line = first, character = 0 }, ['end'] = { line = last, character = 0 } },
    oldText = old, newText = new, label = 'Next edit: scale.go: line ' .. (first + 1),
  } } } } }
end

-- nes is the server's suggestion: line 5 (0-based 4) gets sy's factor.
local function nes(uri)
  return { hunk(uri, 'nes-1', 4, 5, '\tsy := y * 2\n', '\tsy := y * 3\n') }
end

-- press types keys (with mappings) and waits for what they scheduled.
local function press(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), 'mx', false)
  vim.wait(50)
end

-- stub replaces next_edit.keep for fn's length; it returns the hunks kept.
local function stub(fn)
  local kept = {}
  local real = next_edit.keep
  next_edit.keep = function(h)
    kept[#kept + 1] = h.run_id .. ' ' .. h.id
    return true
  end
  local ok, e = pcall(fn, kept)
  next_edit.keep = real
  if not ok then
    error(e, 0)
  end
  return kept
end

return function(H)
  H.test('next_edit: near is the nes- hunk on or next to the row, never a run\'s', function()
    local b = buffer(H, 1, function(uri)
      return { nes(uri)[1], hunk(uri, 'r2', 7, 8, '', '// more\n') }
    end)
    local got = {}
    for row = 0, 8 do
      local h = next_edit.near(b, row)
      got[#got + 1] = h and h.run_id or '-'
    end
    H.eq({ '-', '-', '-', 'nes-1', 'nes-1', 'nes-1', '-', '-', '-' }, got, 'rows 0..8')
    pending.on_notification({ runId = 'nes-1', files = {} }, 7) -- withdrawn
    H.eq(nil, next_edit.near(b, 4), 'withdrawn')
  end)

  H.test('next_edit: Tab keeps the suggestion at the cursor in normal and insert mode, else it is Tab', function()
    local cfg = assert(config.resolve({}))
    local b = buffer(H, 4, nes)
    next_edit.attach(b, cfg)
    local kept = stub(function()
      press('<Tab>') -- normal mode, on the line above the hunk
      press('A<Tab><Esc>') -- insert mode, at the end of that line
    end)
    H.eq({ 'nes-1 nes-1.1', 'nes-1 nes-1.1' }, kept, 'kept from normal and insert mode')
    H.eq(LINES, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'no tab typed')

    -- Two lines away it is the key it always was: a tab in insert mode.
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    kept = stub(function()
      press('i<Tab><Esc>')
    end)
    H.eq({}, kept, 'nothing kept away from the hunk')
    H.eq('\t', vim.api.nvim_buf_get_lines(b, 1, 2, false)[1], 'Tab inserted a tab')

    -- Ghost text shown: inline's suggestion comes first.
    vim.api.nvim_win_set_cursor(0, { 4, 0 })
    inline.state[b] = { shown = { row = 3, col = 0 } }
    kept = stub(function()
      press('I<Tab><Esc>')
    end)
    inline.state[b] = nil
    H.eq({}, kept, 'nothing kept while ghost text is shown')
    H.eq('\t\tsx := x * 3', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'Tab went to the text')
  end)

  H.test('next_edit: without a suggestion the user\'s own Tab mapping runs', function()
    vim.keymap.set('i', '<Tab>', 'XY', { desc = 'user tab' })
    vim.g.user_tab = 0
    vim.keymap.set('n', '<Tab>', '<Cmd>let g:user_tab += 1<CR>')
    -- A Lua function's mapping, where maparg() gives it back (0.7 cannot).
    local lua_fn = vim.fn.has('nvim-0.8') == 1
    if lua_fn then
      vim.keymap.set('i', '<S-Tab>', function() vim.g.user_stab = true end)
    end
    local ok, e = pcall(function()
      local b = buffer(H, 2, function()
        return {}
      end)
      next_edit.attach(b, assert(config.resolve({})))
      press('<Tab>')
      H.eq(1, vim.g.user_tab, 'the user\'s normal-mode Tab')
      press('iab<Tab><Esc>')
      H.eq('abXY', vim.api.nvim_buf_get_lines(b, 1, 2, false)[1], 'the user\'s insert-mode Tab')
      -- A restarted server attaches again: still the user's, not a loop.
      next_edit.attach(b, assert(config.resolve({})))
      press('<Tab>')
      H.eq(2, vim.g.user_tab, 'the user\'s Tab after attaching again')
      if lua_fn then
        next_edit.attach(b, assert(config.resolve({ next_edit = { keep = '<S-Tab>' } })))
        press('i<S-Tab><Esc>')
        H.eq(true, vim.g.user_stab, 'the user\'s Lua mapping ran')
        vim.keymap.del('i', '<S-Tab>')
      end
    end)
    vim.keymap.del('i', '<Tab>')
    vim.keymap.del('n', '<Tab>')
    if not ok then
      error(e, 0)
    end
  end)

  H.test('next_edit: the option, false maps nothing, and inline_completion.next_edit is sent as nextEdit', function()
    H.eq({ keep = '<Tab>' }, assert(config.resolve({})).next_edit, 'default')
    H.eq({ keep = '<C-y>' }, assert(config.resolve({ next_edit = { keep = '<C-y>' } })).next_edit, 'another key')
    local _, err = config.resolve({ next_edit = { key = '<Tab>' } })
    H.contains(err, 'next_edit: unknown key key', 'a typo')
    _, err = config.resolve({ next_edit = 'tab' })
    H.contains(err, 'next_edit: expected a table or false', 'a string')
    local off = assert(config.resolve({ next_edit = false }))
    local b = buffer(H, 4, nes)
    next_edit.attach(b, off)
    H.eq('', vim.fn.maparg('<Tab>', 'i'), 'not mapped with next_edit = false')
    H.eq('', vim.fn.maparg('<Tab>', 'n'), 'not mapped in normal mode either')

    H.eq(nil, config.settings(assert(config.resolve({}))).inlineCompletion, 'unset: nothing sent')
    H.eq({ nextEdit = true }, config.settings(assert(config.resolve({ inline_completion = { next_edit = true } }))).inlineCompletion, 'sent')
    H.eq({ enabled = false, nextEdit = true }, config.settings(assert(config.resolve({ inline_completion = { enabled = false, next_edit = true } }))).inlineCompletion, 'next edits without completions')
  end)
end

-- A conflicted pending hunk's ways out (catbuddy.pending_resolve): which
-- hunk the cursor names, what is sent for it (catbuddy.keep's
-- `conflicts`), that nothing is sent for a hunk not in conflict, how the
-- server's answer is told, the keys and :CatbuddyPending resolve. The send
-- itself goes through real cb-ls in tests/e2e/pending_conflict_test.lua.
local pending = require('catbuddy.pending')
local resolve = require('catbuddy.pending_resolve')
local config = require('catbuddy.config')

local function hunk(id, line, conflict)
  return { id = id, range = { start = { line = line, character = 0 }, ['end'] = { line = line + 1, character = 0 } }, oldText = 'x\n', newText = 'y\n', label = 'calc.go: line ' .. (line + 1), conflict = conflict }
end

-- open writes a six-line file, opens it and sends one run's set with a
-- plain hunk on line 2 and a conflicted one on line 4 (1-based).
local function open(H, cid)
  local path = H.tmpdir() .. '/calc.go'
  vim.fn.writefile({ 'a', 'b', 'c', 'd', 'e', 'f' }, path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  pending.on_notification({ runId = 'r9', files = { { uri = uri, path = 'calc.go', kind = 'changed', hunks = { hunk('plain', 1), hunk('conf', 3, 'your text changed its lines') } } } }, cid)
  return buf, uri
end

-- sending replaces resolve.send for fn's duration and returns what was sent.
local function sending(answer, fn)
  local sent, orig = {}, resolve.send
  resolve.send = function(cid, arg, cb)
    sent[#sent + 1] = { cid = cid, arg = arg }
    cb(nil, answer)
  end
  local ok, err = pcall(fn)
  resolve.send = orig
  assert(ok, err)
  return sent
end

return function(H)
  H.test('pending resolve: the conflicted hunk under the cursor is sent with its resolution; a plain one is not', function()
    pending.sets = {}
    local buf = open(H, 931)
    local notes, restore = H.capture_notify()
    local sent = sending({ kept = {}, left = {}, resolved = { { hunk = 'conf', as = 'both' } } }, function()
      vim.api.nvim_win_set_cursor(0, { 4, 0 })
      H.truthy(resolve.resolve('both', buf), 'sent on the conflict')
      vim.api.nvim_win_set_cursor(0, { 2, 0 })
      H.eq(false, resolve.resolve('theirs', buf), 'nothing sent on a hunk not in conflict')
      vim.api.nvim_win_set_cursor(0, { 6, 0 })
      H.eq(false, resolve.resolve('run', buf), 'nothing sent where nothing is pending')
      vim.api.nvim_win_set_cursor(0, { 4, 0 })
      H.eq(false, resolve.resolve('mine', buf), 'nothing sent for an unknown choice')
    end)
    restore()
    H.eq({ { cid = 931, arg = { runId = 'r9', hunks = { 'conf' }, conflicts = 'both' } } }, sent, 'one catbuddy.keep, for the conflicted hunk')
    local msgs = vim.tbl_map(function(n) return n.msg end, notes)
    H.eq({
      "catbuddy: kept both: your lines, then the run's",
      'catbuddy: the pending change under the cursor is not in conflict: keep or undo it',
      'catbuddy: no pending change under the cursor',
      'catbuddy: resolve: expected one of both, theirs, run, markers, got mine',
    }, msgs, 'what the user is told')
    vim.cmd('bwipeout!')
  end)

  H.test('pending resolve: the answer is told as the server gave it', function()
    local levels = vim.log.levels
    local function m(choice, err, res)
      local text, level = resolve.message('conf', choice, err, res)
      return { text, level }
    end
    H.eq({ "catbuddy: kept your text; the run's change left the pending set", levels.INFO }, m('theirs', nil, { resolved = { { hunk = 'conf', as = 'theirs' } } }))
    H.eq({ "catbuddy: took the run's lines in place of yours", levels.INFO }, m('run', nil, { resolved = { { hunk = 'conf', as = 'run' } } }))
    H.contains(m('markers', nil, { resolved = { { hunk = 'conf', as = 'markers' } } })[1], 'wrote conflict markers')
    H.eq({ "catbuddy: kept both: your lines, then the run's (asked: run)", levels.WARN }, m('run', nil, { resolved = { { hunk = 'conf', as = 'both' } } }), 'the server chose otherwise')
    H.eq({ "catbuddy: kept the run's change: it was no longer in conflict", levels.INFO }, m('both', nil, { kept = { 'conf' }, left = {}, resolved = {} }))
    H.eq({ 'catbuddy: nothing resolved, the change is still pending: calc.go was deleted', levels.WARN }, m('both', nil, { kept = {}, left = { { hunk = 'conf', reason = 'calc.go was deleted' } } }))
    H.eq(levels.ERROR, m('both', nil, { kept = {}, left = {} })[2], 'an answer naming the hunk nowhere is no success')
    H.eq({ 'catbuddy: catbuddy.keep (conflicts = both): boom', levels.ERROR }, m('both', { message = 'boom' }, nil))
  end)

  H.test('pending resolve: keys, :CatbuddyPending resolve and its completion', function()
    pending.sets = {}
    local cfg = assert(config.resolve({ keymaps = { resolve_markers = '<leader>xm', resolve_run = false } }))
    local buf = open(H, 932)
    pending.attach(buf, cfg)
    local leader = vim.g.mapleader or '\\'
    local lhs = {}
    for _, km in ipairs(vim.api.nvim_buf_get_keymap(buf, 'n')) do
      lhs[km.lhs] = km.desc or true
    end
    H.truthy(lhs[leader .. 'ab'], 'resolve_both mapped: ' .. vim.inspect(lhs))
    H.truthy(lhs[leader .. 'ay'], 'resolve_theirs mapped')
    H.truthy(lhs[leader .. 'xm'], 'resolve_markers mapped where configured')
    H.eq(nil, lhs[leader .. 'ar'], 'resolve_run left alone')
    local _, e = config.resolve({ keymaps = { resolve_yours = 'x' } })
    H.contains(e, 'resolve_theirs', 'an unknown key lists the known ones')

    local sent = sending({ resolved = { { hunk = 'conf', as = 'markers' } } }, function()
      local _, restore = H.capture_notify()
      vim.api.nvim_win_set_cursor(0, { 4, 0 })
      vim.cmd('normal ' .. leader .. 'xm')
      vim.cmd('normal ' .. leader .. 'ay')
      vim.cmd('CatbuddyPending resolve run')
      restore()
    end)
    H.eq({ 'markers', 'theirs', 'run' }, vim.tbl_map(function(s) return s.arg.conflicts end, sent), 'each key and the command sent its choice')

    H.eq({ 'resolve' }, vim.fn.getcompletion('CatbuddyPending ', 'cmdline'), 'the first word')
    H.eq({ 'both', 'theirs', 'run', 'markers' }, vim.fn.getcompletion('CatbuddyPending resolve ', 'cmdline'), 'the four resolutions')
    H.eq({ 'run' }, vim.fn.getcompletion('CatbuddyPending resolve r', 'cmdline'), 'completed from the typed start')
    H.eq({}, vim.fn.getcompletion('CatbuddyPending resolve both ', 'cmdline'), 'nothing after the choice')
    vim.cmd('bwipeout!')
  end)
end

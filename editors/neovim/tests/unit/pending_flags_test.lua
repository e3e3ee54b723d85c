-- A pending file's flags, as the server sends them in
-- catbuddy/pendingChanges (runsLater, keepRefused, whole), are shown
-- before the user keeps: in the quickfix list of :CatbuddyPending and in
-- the buffer's inline marks.
local pending = require('catbuddy.pending')

local function zero()
  return { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }
end

local refusal = 'not kept: cb-ls never writes into a .git directory (git runs its hooks and config); discard it, or make the change yourself'

-- notify sends one run with an .envrc (runs later), a file under .git/
-- (refused) and a whole-file item, as client cid, under root.
local function notify(root, cid)
  local u = function(rel)
    return vim.uri_from_fname(root .. '/' .. rel)
  end
  pending.on_notification({ runId = 'r1', files = {
    { uri = u('.envrc'), path = '.envrc', kind = 'created', runsLater = 'direnv loads it on cd',
      hunks = { { id = 'h1', range = zero(), oldText = '', newText = 'export X=1\n', label = '.envrc: line 1' } } },
    { uri = u('.git/hooks/pre-commit'), path = '.git/hooks/pre-commit', kind = 'created', keepRefused = refusal,
      runsLater = 'git runs its hooks and reads its config (core.fsmonitor, filters) on the next git command',
      hunks = { { id = 'h2', range = zero(), oldText = '', newText = '#!/bin/sh\n', label = 'pre-commit: line 1' } } },
    { uri = u('big.bin'), path = 'big.bin', kind = 'created', whole = true,
      hunks = { { id = 'h3', range = zero(), oldText = '', newText = '', label = 'big.bin: 2.0 GB, whole file' } } },
  } }, cid)
end

return function(H)
  H.test('pending flags: the quickfix list says runs later and not kept; a whole item is one entry with its label', function()
    pending.sets = {}
    local root = H.tmpdir()
    notify(root, 911)
    H.eq(3, pending.quickfix(), 'one entry per file')
    local by = {}
    for _, it in ipairs(vim.fn.getqflist()) do
      by[vim.fn.fnamemodify(vim.fn.bufname(it.bufnr), ':t')] = it
    end
    H.eq('[r1] .envrc: line 1 (runs later: direnv loads it on cd)', by['.envrc'].text, '.envrc')
    H.eq('W', by['.envrc'].type, '.envrc is a warning')
    H.contains(by['pre-commit'].text, '(' .. refusal .. '; runs later: git runs its hooks', 'the refusal, said once, first')
    H.eq(nil, by['pre-commit'].text:find('not kept: not kept', 1, true), 'not said twice')
    H.eq('[r1] big.bin: 2.0 GB, whole file', by['big.bin'].text, 'whole item: its label')
    H.eq(1, by['big.bin'].lnum, 'whole item on line 1')
    pending.sets = {}
  end)

  H.test('pending flags: inline marks show the notes; a whole item draws its label, not lines', function()
    pending.sets = {}
    local root = H.tmpdir()
    vim.fn.writefile({ 'export Y=2' }, root .. '/.envrc')
    vim.fn.writefile({ 'not text, as far as the buffer goes' }, root .. '/big.bin')
    notify(root, 912)
    local function virt(rel)
      vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/' .. rel))
      local buf = vim.api.nvim_get_current_buf()
      pending.draw(buf)
      local out, line_marks = {}, 0
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, pending.ns, 0, -1, { details = true })) do
        if not m[4].virt_lines then
          line_marks = line_marks + 1
        end
        for _, vl in ipairs(m[4].virt_lines or {}) do
          out[#out + 1] = vl[1][1]
        end
      end
      return out, line_marks, buf
    end
    local env = virt('.envrc')
    H.eq({ '! runs later: direnv loads it on cd', '+ export X=1' }, env, '.envrc marks')
    local big, line_marks, buf = virt('big.bin')
    H.eq({ '+ big.bin: 2.0 GB, whole file' }, big, 'whole item: its label only')
    H.eq(0, line_marks, 'no line of a whole item is marked removed')
    H.truthy(pending.hunks(vim.uri_from_bufnr(buf))[1].whole, 'hunks() says whole')
    pending.sets = {}
    vim.cmd('bufdo bwipeout!')
  end)
end

local E = require('e2e.env')

-- A run that edits calc.go twice (the comment, then the return) and ends:
-- with review = 'pending' nothing is asked and nothing lands until kept.
local two_edits = {
  { tool_calls = { { name = 'read_file', args = { path = 'calc.go' } } } },
  { tool_calls = { { name = 'edit_file', args = { path = 'calc.go', old_string = '// Add returns the sum of a and b.', new_string = '// Add adds a and b.' } } } },
  { tool_calls = { { name = 'edit_file', args = { path = 'calc.go', old_string = 'return a - b', new_string = 'return a + b' } } } },
  { text = 'Done.' },
}

local function count_marks(b)
  return #vim.api.nvim_buf_get_extmarks(b, require('catbuddy.pending').ns, 0, -1, {})
end

return function(H)
  H.test('e2e: pending hunks are drawn; keep one lands only it, undo all discards the rest', function()
    local model = E.model(H, two_edits)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      local before = vim.fn.readfile(path)
      E.setup(H, model, { review = 'pending' })
      local b = E.open(H, path)
      local main = vim.api.nvim_get_current_win()
      local pending = require('catbuddy.pending')
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.eq(main, vim.api.nvim_get_current_win(), 'no review window opened')
      H.wait(10000, function()
        return pending.count() == 2
      end, 'two pending hunks')
      H.eq(before, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'the buffer is untouched while pending')
      H.eq(before, vim.fn.readfile(path), 'the disk is untouched while pending')
      H.truthy(count_marks(b) >= 4, 'decorations drawn')
      H.eq(2, vim.g.catbuddy_pending, 'vim.g count')

      -- ]c goes to the first hunk (the comment), ]c again to the return.
      vim.api.nvim_win_set_cursor(0, { 1, 0 })
      vim.cmd('normal ]c')
      vim.cmd('normal ]c')
      H.contains(vim.api.nvim_get_current_line(), 'return a - b', ']c reached the return')
      local done = false
      vim.cmd('CatbuddyKeep')
      H.wait(10000, function()
        return pending.count() == 1 and vim.fn.readfile(path)[5] == '\treturn a + b'
      end, 'the kept hunk on disk')
      done = true
      H.truthy(done, 'kept')
      H.contains(table.concat(vim.fn.readfile(path), '\n'), '// Add returns the sum of a and b.', 'the other hunk did not land')

      H.eq(1, require('catbuddy.pending').quickfix(), 'quickfix lists the hunk left')

      -- A restart: the new server finds the set and the hunk is shown again.
      local compat = require('catbuddy.compat')
      for _, c in ipairs(compat.get_clients({ name = 'catbuddy' })) do
        compat.stop(c)
      end
      H.wait(5000, function()
        return #compat.get_clients({ name = 'catbuddy' }) == 0 and pending.count() == 0
      end, 'the client to stop and its hunks to go')
      vim.cmd('silent! %bwipe!')
      b = E.open(H, path)
      H.wait(10000, function()
        return pending.count() == 1 and count_marks(b) >= 2
      end, 'the pending hunk shown again after the restart')
      vim.cmd('CatbuddyUndo all')
      H.wait(10000, function()
        return pending.count() == 0
      end, 'nothing pending after undo all')
      H.eq(0, count_marks(b), 'decorations cleared')
      H.contains(table.concat(vim.fn.readfile(path), '\n'), '// Add returns the sum of a and b.', 'the discarded hunk never landed')
    end)
    E.teardown(model)
    if not ok then
      error(e, 0)
    end
  end)

  H.test('e2e: typing inside a pending hunk marks it in conflict; Keep leaves it and keeps the typing', function()
    local model = E.model(H, E.fix_turns)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, { review = 'pending' })
      local b = E.open(H, path)
      local pending = require('catbuddy.pending')
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.wait(10000, function()
        return pending.count() == 1
      end, 'one pending hunk')
      -- The user rewrites the very line the hunk replaces.
      vim.api.nvim_buf_set_lines(b, 4, 5, false, { '\treturn b - a // mine' })
      H.wait(10000, function()
        local hs = pending.hunks(vim.uri_from_bufnr(b))
        return #hs == 1 and hs[1].conflict ~= nil
      end, 'the hunk marked in conflict')
      local notes, restore = H.capture_notify()
      vim.api.nvim_win_set_cursor(0, { 5, 0 })
      vim.cmd('CatbuddyKeep')
      local ok_wait = vim.wait(10000, function()
        return #notes > 0
      end, 20)
      restore()
      H.truthy(ok_wait, 'the keep answered')
      H.contains(notes[1].msg, 'left pending', 'the keep says what it left')
      H.eq('\treturn b - a // mine', vim.api.nvim_buf_get_lines(b, 4, 5, false)[1], 'the typing is kept')
      H.eq(1, pending.count(), 'the hunk stays pending')
    end)
    E.teardown(model)
    if not ok then
      error(e, 0)
    end
  end)
end

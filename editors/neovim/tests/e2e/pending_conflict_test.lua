local E = require('e2e.env')

-- A pending hunk in conflict and its ways out, through real cb-ls: two
-- runs insert a line at the same place, each pending; the first run's
-- hunk is kept, so the user's text now has a line where the second run's
-- hunk inserts, and that hunk is in conflict (its `!` sign). The resolve
-- keys and :CatbuddyPending resolve then send catbuddy.keep with
-- `conflicts`; the buffer and the disk hold what the resolution says, and
-- the hunk leaves the set.

local BOTH = { 'package calc', '', '// Sum returns a plus b.', 'func Sum(a, b int) int {', '\treturn a + b', '}' }

local function insert(line)
  return { tool_calls = { { name = 'edit_file', args = { path = 'both.go', old_string = '\treturn a + b\n', new_string = '\t// ' .. line .. '\n\treturn a + b\n' } } } }
end

local function disk(path)
  return vim.fn.readfile(path)
end

local function marks(b)
  return #vim.api.nvim_buf_get_extmarks(b, require('catbuddy.pending').ns, 0, -1, {})
end

-- recording_signs records the sign of each pending mark placed in b
-- until the returned stop() is called (0.7 does not report an extmark's
-- sign_text in its details; 0.10 does): signs() lists them.
local function recording_signs(b)
  local ns = require('catbuddy.pending').ns
  local orig = vim.api.nvim_buf_set_extmark
  local seen = {}
  vim.api.nvim_buf_set_extmark = function(buf, id, row, col, opts)
    if buf == b and id == ns and opts and opts.sign_text then
      seen[#seen + 1] = vim.trim(opts.sign_text)
    end
    return orig(buf, id, row, col, opts)
  end
  return {
    signs = function()
      return seen
    end,
    stop = function()
      vim.api.nvim_buf_set_extmark = orig
    end,
  }
end

-- conflicted runs the two runs and keeps the first; it returns the
-- buffer, the file and the second run's conflicted hunk.
local function conflicted(H, dir)
  local path = H.write(dir .. '/both.go', BOTH)
  local b = E.open(H, path)
  local pending = require('catbuddy.pending')
  local resolve = require('catbuddy.pending_resolve')
  local function fix()
    local run = E.wait_run(H, function(cb)
      require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
    end)
    H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
    return run
  end
  local first = fix()
  H.wait(10000, function()
    return pending.count() == 1
  end, "the first run's hunk")
  local second = fix()
  H.wait(10000, function()
    return pending.count() == 2
  end, "both runs' hunks")
  H.eq(BOTH, disk(path), 'nothing on disk while pending')
  -- Keep the first run's hunk (by its run: both hunks are at one line).
  local rec = recording_signs(b)
  local h
  local ok, err = pcall(function()
    local kept
    resolve.send(first.client_id, { runId = first.id }, function(err, result)
      kept = { err = err, result = result }
    end)
    H.wait(10000, function()
      return kept ~= nil
    end, "the first run's keep to answer")
    H.eq(nil, kept.err, 'keep error')
    local with_first = vim.deepcopy(BOTH)
    table.insert(with_first, 5, '\t// first')
    H.wait(10000, function()
      return vim.deep_equal(with_first, vim.api.nvim_buf_get_lines(b, 0, -1, false)) and vim.deep_equal(with_first, disk(path))
    end, "the first run's line in the buffer and on disk")
    H.wait(10000, function()
      local hs = pending.hunks(vim.uri_from_bufnr(b))
      h = hs[1]
      return #hs == 1 and h.run_id == second.id and h.conflict ~= nil
    end, "the second run's hunk in conflict (" .. vim.inspect(pending.hunks(vim.uri_from_bufnr(b))) .. ')')
  end)
  rec.stop()
  if not ok then
    error(err, 0)
  end
  H.truthy(vim.tbl_contains(rec.signs(), '!'), 'the conflict is signed ! (signs placed: ' .. vim.inspect(rec.signs()) .. ')')
  return b, path, h
end

-- press runs the normal-mode keys lhs (a keymap as configured) through the mappings.
local function press(lhs)
  vim.cmd('normal ' .. lhs:gsub('<[Ll]eader>', vim.g.mapleader or '\\'))
end

return function(H)
  H.test('e2e: pending conflict: two runs insert at one line, the first kept, the second conflicts; Keep Both (key) gives both lines', function()
    E.with_model(H, { insert('first'), { text = 'Added the first.' }, insert('second'), { text = 'Added the second.' } }, function(model)
      local dir = E.project(H)
      E.setup(H, model, { review = 'pending' })
      local pending = require('catbuddy.pending')
      local b, path, h = conflicted(H, dir)
      vim.api.nvim_win_set_cursor(0, { h.first + 1, 0 })
      local notes, restore = H.capture_notify()
      press(require('catbuddy.config').defaults.keymaps.resolve_both)
      local answered = vim.wait(15000, function()
        return #notes > 0
      end, 20)
      restore()
      H.truthy(answered, 'the resolution answered')
      H.eq("catbuddy: kept both: your lines, then the run's", notes[1].msg, 'what the user is told (' .. vim.inspect(notes) .. ')')
      local want = vim.deepcopy(BOTH)
      table.insert(want, 5, '\t// first')
      table.insert(want, 6, '\t// second')
      H.wait(10000, function()
        return vim.deep_equal(want, vim.api.nvim_buf_get_lines(b, 0, -1, false)) and vim.deep_equal(want, disk(path))
      end, 'both lines, the user\'s first, in the buffer and on disk (buffer: ' .. vim.inspect(vim.api.nvim_buf_get_lines(b, 0, -1, false)) .. ')')
      H.wait(10000, function()
        return pending.count() == 0 and marks(b) == 0
      end, 'the hunk gone, and its marks')
    end)
  end)

  H.test('e2e: pending conflict: :CatbuddyPending resolve markers writes the conflict markers', function()
    E.with_model(H, { insert('first'), { text = 'Added the first.' }, insert('second'), { text = 'Added the second.' } }, function(model)
      local dir = E.project(H)
      E.setup(H, model, { review = 'pending' })
      local pending = require('catbuddy.pending')
      local b, _, h = conflicted(H, dir)
      vim.api.nvim_win_set_cursor(0, { h.first + 1, 0 })
      local notes, restore = H.capture_notify()
      vim.cmd('CatbuddyPending resolve markers')
      local answered = vim.wait(15000, function()
        return #notes > 0
      end, 20)
      restore()
      H.truthy(answered, 'the resolution answered')
      H.contains(notes[1].msg, 'wrote conflict markers', 'what the user is told')
      local text
      H.wait(10000, function()
        text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
        return text:find('<<<<<<< yours', 1, true) ~= nil
      end, 'the markers in the buffer')
      local yours, sep, run = text:find('<<<<<<< yours', 1, true), text:find('\n=======\n', 1, true), text:find('>>>>>>> run ' .. h.run_id, 1, true)
      H.truthy(yours and sep and run and yours < sep and sep < run, 'yours, =======, then the run\'s marker naming the run: ' .. text)
      H.truthy(text:find('// first', 1, true) < sep and text:find('// second', 1, true) > sep, 'your line above =======, the run\'s below: ' .. text)
      H.wait(10000, function()
        return pending.count() == 0
      end, 'the hunk gone')
    end)
  end)
end

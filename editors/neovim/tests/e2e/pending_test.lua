local E = require('e2e.env')

-- editors/testdata/pending_flow.json: the project, the scripted model's
-- turns and what must hold at each step of the pending review flow. The
-- VS Code e2e suite and the server's fake-editor test drive and assert
-- the same file.
local fixture_path = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h') .. '/testdata/pending_flow.json'
local fx = vim.json.decode(table.concat(vim.fn.readfile(fixture_path), '\n'))

local function count_marks(b)
  return #vim.api.nvim_buf_get_extmarks(b, require('catbuddy.pending').ns, 0, -1, {})
end

-- project writes files (name -> text) into a fresh git-rooted directory,
-- makes it the current one and returns it.
local function project(H, files)
  local dir = vim.fn.resolve(H.tmpdir())
  vim.fn.mkdir(dir .. '/.git', 'p')
  for name, text in pairs(files) do
    local f = assert(io.open(dir .. '/' .. name, 'wb'))
    f:write(text)
    f:close()
  end
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  return dir
end

-- disk returns what the files named in want hold on disk, by name.
local function disk(dir, want)
  local out = {}
  for name in pairs(want) do
    local f = io.open(dir .. '/' .. name, 'rb')
    out[name] = f and f:read('*a') or nil
    if f then
      f:close()
    end
  end
  return out
end

local function lines_of(text)
  local ls = vim.split(text, '\n', { plain = true })
  if ls[#ls] == '' then
    table.remove(ls)
  end
  return ls
end

-- fix runs Fix This on start.line of start.file (opened) and waits for
-- the run's end; it returns the buffer and the run.
local function fix(H, dir, start)
  local b = E.open(H, dir .. '/' .. start.file)
  H.contains(vim.api.nvim_buf_get_lines(b, start.line - 1, start.line, false)[1], start.shows, 'the line Fix This starts on')
  local run = E.wait_run(H, function(cb)
    require('catbuddy').fix({ line1 = start.line, line2 = start.line, range = 1 }, cb)
  end)
  H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
  return b, run
end

-- press runs the normal-mode keys lhs (a keymap as configured, with
-- <leader> standing for the leader) through the mappings.
local function press(lhs)
  local keys = lhs:gsub('<[Ll]eader>', vim.g.mapleader or '\\')
  vim.cmd('normal ' .. keys)
end

local function uri(dir, name)
  return vim.uri_from_fname(dir .. '/' .. name)
end

return function(H)
  H.test('e2e: pending flow (shared fixture): drawn, keep one lands only it, restart, undo all discards the rest', function()
    E.with_model(H, fx.turns, function(model)
      local dir = project(H, fx.files)
      E.setup(H, model, { review = 'pending' })
      local notes, restore = H.capture_notify()
      local main = vim.api.nvim_get_current_win()
      local pending = require('catbuddy.pending')
      local b = fix(H, dir, fx.start)
      H.eq(main, vim.api.nvim_get_current_win(), 'no review window opened')
      H.wait(10000, function()
        return pending.count() == fx.count
      end, fx.count .. ' pending hunks (got ' .. pending.count() .. ')')
      restore()
      local ended = {}
      for _, n in ipairs(notes) do
        if tostring(n.msg):find('pending review', 1, true) then
          ended[#ended + 1] = n.msg
        end
      end
      H.eq(1, #ended, 'one end notification says the run is pending review (' .. vim.inspect(notes) .. ')')
      H.contains(ended[1], fx.changedFiles .. ' file(s) changed', 'the end notification counts the files')
      for name, n in pairs(fx.pending) do
        H.eq(n, #pending.hunks(uri(dir, name)), name .. "'s pending hunks")
      end
      H.eq(lines_of(fx.files[fx.start.file]), vim.api.nvim_buf_get_lines(b, 0, -1, false), 'the buffer is untouched while pending')
      H.eq(fx.files, disk(dir, fx.files), 'the disk is untouched while pending')
      H.truthy(count_marks(b) >= 2 * fx.pending[fx.start.file], 'decorations drawn')
      H.eq(fx.count, vim.g.catbuddy_pending, 'vim.g count')
      H.eq(fx.count .. ' pending', pending.statusline(), 'the statusline component')
      H.eq(fx.count, pending.quickfix(), 'quickfix lists every pending hunk')

      -- ]c from the top reaches the hunk to keep.
      vim.api.nvim_win_set_cursor(0, { 1, 0 })
      for _ = 1, fx.keep.hunk do
        vim.cmd('normal ]c')
      end
      H.eq(fx.keep.line, vim.api.nvim_win_get_cursor(0)[1], ']c reached the hunk to keep')
      vim.cmd('CatbuddyKeep')
      H.wait(10000, function()
        return pending.count() == fx.countAfterKeep and vim.deep_equal(fx.keep.disk, disk(dir, fx.keep.disk))
      end, 'only the kept hunk on disk (disk: ' .. vim.inspect(disk(dir, fx.keep.disk)) .. ')')
      H.eq(fx.countAfterKeep, pending.quickfix(), 'quickfix lists the hunks left')

      -- A restart: the new server finds the set and the hunks are shown again.
      local compat = require('catbuddy.compat')
      for _, c in ipairs(compat.get_clients({ name = 'catbuddy' })) do
        compat.stop(c)
      end
      H.wait(5000, function()
        return #compat.get_clients({ name = 'catbuddy' }) == 0 and pending.count() == 0
      end, 'the client to stop and its hunks to go')
      vim.cmd('silent! %bwipe!')
      b = E.open(H, dir .. '/' .. fx.keep.file)
      H.wait(10000, function()
        return pending.count() == fx.countAfterKeep and count_marks(b) >= 2
      end, 'the pending hunks shown again after the restart')

      -- Undo All in each file: the command in the first, the keymap after.
      for i, step in ipairs(fx.undoAll) do
        if i > 1 then
          b = E.open(H, dir .. '/' .. step.file)
        end
        H.contains(table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'), step.shows, step.file .. "'s buffer")
        H.truthy(#pending.hunks(uri(dir, step.file)) > 0, step.file .. ' has pending hunks')
        if i == 1 then
          vim.cmd('CatbuddyUndo all')
        else
          press(require('catbuddy.config').defaults.keymaps.undo_all)
        end
        H.wait(10000, function()
          return pending.count() == step.count
        end, step.count .. ' pending after undo all in ' .. step.file .. ' (got ' .. pending.count() .. ')')
        H.eq(0, count_marks(b), step.file .. "'s decorations cleared")
      end
      H.eq(fx.disk, disk(dir, fx.disk), 'the disk after undo all: the undone hunks never landed')
      H.eq(0, vim.g.catbuddy_pending, 'vim.g count after undo all')
    end)
  end)

  H.test('e2e: pending flow (shared fixture): typing inside a pending hunk, then Keep, leaves it and keeps the typing', function()
    local cf = fx.conflict
    E.with_model(H, cf.turns, function(model)
      local dir = project(H, cf.files)
      E.setup(H, model, { review = 'pending' })
      local pending = require('catbuddy.pending')
      local b = fix(H, dir, cf.start)
      local u = vim.uri_from_bufnr(b)
      H.wait(10000, function()
        return #pending.hunks(u) == 1
      end, 'one pending hunk')
      -- The user types at the end of the very line the hunk replaces.
      vim.api.nvim_win_set_cursor(0, { cf.start.line, 0 })
      vim.cmd('normal! A' .. cf.type)
      H.eq(cf.typed, vim.api.nvim_get_current_line(), 'the typing')
      H.wait(10000, function()
        local hs = pending.hunks(u)
        return #hs == 1 and hs[1].conflict ~= nil
      end, 'the hunk marked in conflict')
      local notes, restore = H.capture_notify()
      vim.api.nvim_win_set_cursor(0, { cf.start.line, 0 })
      vim.cmd('CatbuddyKeep')
      local ok_wait = vim.wait(30000, function()
        return #notes > 0
      end, 20)
      restore()
      H.truthy(ok_wait, 'the keep answered')
      H.contains(notes[1].msg, cf.left, 'the keep says what it left')
      H.eq(cf.typed, vim.api.nvim_buf_get_lines(b, cf.start.line - 1, cf.start.line, false)[1], 'the typing is kept')
      H.eq(1, pending.count(), 'the hunk stays pending')
      H.eq(cf.disk, disk(dir, cf.disk), 'nothing kept on disk')
    end)
  end)

  H.test('e2e: two runs with pending hunks in one file are shown apart, each with its title', function()
    E.with_model(H, {
      { tool_calls = { { name = 'read_file', args = { path = 'calc.go' } } } },
      { tool_calls = { { name = 'edit_file', args = { path = 'calc.go', old_string = 'return a - b', new_string = 'return a + b' } } } },
      { text = 'Fixed.' },
      { tool_calls = { { name = 'edit_file', args = { path = 'calc.go', old_string = '// Add returns the sum of a and b.', new_string = '// Add adds a and b.' } } } },
      { text = 'Documented.' },
    }, function(model)
      local _, path = E.project(H)
      E.setup(H, model, {
        review = 'pending',
        custom_commands = { doc = { title = 'Agent: Document', prompt = 'Document ${selection}' } },
      })
      local b = E.open(H, path)
      local pending = require('catbuddy.pending')
      E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.wait(10000, function()
        return pending.count() == 1
      end, "the first run's hunk")
      H.wait(5000, function()
        return vim.tbl_contains(vim.fn.getcompletion('CatbuddyRun ', 'cmdline'), 'doc')
      end, 'the custom command')
      local last = require('catbuddy.runs').last
      vim.cmd('3,3CatbuddyRun doc')
      local run = E.wait_new_run(H, last)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.wait(10000, function()
        return pending.count() == 2
      end, "both runs' hunks")
      local heads = {}
      H.wait(10000, function()
        heads = {}
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(b, pending.ns, 0, -1, { details = true })) do
          for _, vl in ipairs(m[4].virt_lines or {}) do
            heads[#heads + 1] = vl[1][1]
          end
        end
        local text = table.concat(heads, '\n')
        return text:find('[Agent: Fix This]', 1, true) and text:find('[Agent: Document]', 1, true)
      end, 'each hunk titled with its run')
      -- Each title heads its own run's hunk: the comment is the Document run's.
      local at = {}
      for _, h in ipairs(pending.hunks(vim.uri_from_bufnr(b))) do
        at[h.first + 1] = h.title
      end
      H.eq({ [3] = 'Agent: Document', [5] = 'Agent: Fix This' }, at, 'the hunks by line, with their run titles')
    end)
  end)
end

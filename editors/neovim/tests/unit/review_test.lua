local apply = require('catbuddy.apply')
local changes = require('catbuddy.changes')
local review = require('catbuddy.review')
local config = require('catbuddy.config')

local calc = { 'package calc', '', 'func Add(a, b int) int {', '\treturn a - b', '}' }

-- open edits a fresh file holding lines and returns its buffer and path.
local function open(H, lines, name)
  local path = H.write(H.tmpdir() .. '/' .. (name or 'calc.go'), lines)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf(), path
end

local function fix_edit(path, version)
  return {
    documentChanges = {
      {
        textDocument = { uri = vim.uri_from_fname(path), version = version },
        edits = {
          {
            range = { start = { line = 3, character = 10 }, ['end'] = { line = 3, character = 11 } },
            newText = '+',
            annotationId = 'agent',
          },
        },
      },
    },
    changeAnnotations = { agent = { label = 'edit_file', needsConfirmation = true } },
  }
end

local function cfg(over)
  local c = assert(config.resolve(over))
  return c
end

local function disk(path)
  return vim.fn.readfile(path)
end

return function(H)
  H.test('changes: preview of a text edit, with a unified diff', function()
    local _, path = open(H, calc)
    local pv = assert(changes.preview(fix_edit(path, nil), 'utf-16'))
    H.eq(1, #pv.files, 'files')
    local f = pv.files[1]
    H.eq('edit', f.kind, 'kind')
    H.eq(table.concat(calc, '\n') .. '\n', f.old_text, 'old_text')
    H.contains(f.new_text, '\treturn a + b\n', 'new_text')
    H.contains(pv.diff, '--- a/', 'diff header')
    H.contains(pv.diff, '-\treturn a - b\n+\treturn a + b\n', 'diff body')
    H.eq({ 1, 1 }, { changes.count(pv.diff) }, 'counts')
    H.eq(table.concat(calc, '\n') .. '\n', table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n') .. '\n', 'buffer untouched by preview')
  end)

  H.test('changes: UTF-16 positions after an emoji, new files and the changes map', function()
    local _, path = open(H, { 'x := "😀" + y' }, 'emoji.go')
    local newpath = vim.fn.fnamemodify(path, ':h') .. '/sub/new.go'
    local pv = assert(changes.preview({
      documentChanges = {
        -- "y" is UTF-16 column 12 (the emoji counts 2).
        { textDocument = { uri = vim.uri_from_fname(path) }, edits = { { range = { start = { line = 0, character = 12 }, ['end'] = { line = 0, character = 13 } }, newText = 'z' } } },
        { kind = 'create', uri = vim.uri_from_fname(newpath) },
        { textDocument = { uri = vim.uri_from_fname(newpath), version = vim.NIL }, edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = 'package sub\n' } } },
      },
    }, 'utf-16'))
    H.eq('x := "😀" + z\n', pv.files[1].new_text, 'emoji line')
    H.eq('create', pv.files[2].kind, 'create kind')
    -- Inserting "package sub\n" into an empty buffer leaves an empty last
    -- line; apply drops it, so the file is written as the server sent it.
    H.eq('package sub\n', pv.files[2].new_text, 'created text')
    H.contains(pv.files[2].diff, '--- /dev/null', 'create header')
    local pv2 = assert(changes.preview({ changes = { [vim.uri_from_fname(path)] = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 1 } }, newText = 'w' } } } }, 'utf-16'))
    H.eq('w := "😀" + y\n', pv2.files[1].new_text, 'changes map')
  end)

  H.test('apply: a created file is saved with exactly the content sent', function()
    local dir = H.tmpdir()
    local newpath = dir .. '/created/new.go'
    local uri = vim.uri_from_fname(newpath)
    local res = apply.apply({
      documentChanges = {
        { kind = 'create', uri = uri },
        { textDocument = { uri = uri, version = vim.NIL }, edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = 'package sub\n\nvar x = 1\n' } } },
      },
    }, 'utf-16', true)
    H.eq({ applied = true }, res, 'result')
    local f = assert(io.open(newpath, 'rb'))
    local got = f:read('*a')
    f:close()
    H.eq('package sub\n\nvar x = 1\n', got, 'disk content')
    vim.cmd('silent! bwipe! ' .. vim.fn.fnameescape(newpath))
  end)

  H.test('apply: strips change annotations', function()
    local e = apply.strip_annotations(fix_edit('/tmp/x.go', 1))
    H.eq(nil, e.changeAnnotations, 'changeAnnotations')
    H.eq(nil, e.documentChanges[1].edits[1].annotationId, 'annotationId')
  end)

  H.test('review: a function that accepts gets uri, diff and new text; the buffer is fixed and saved', function()
    local b, path = open(H, calc)
    local seen
    local res = review.handle({ edit = fix_edit(path, nil), label = 'edit_file calc.go' }, 'utf-16', cfg({
      review = function(change, done)
        seen = change
        done(true)
      end,
    }))
    H.eq({ applied = true }, res, 'result')
    H.eq(vim.uri_from_fname(path), seen.uri, 'change.uri')
    H.contains(seen.diff, '+\treturn a + b', 'change.diff')
    H.contains(seen.new_text, '\treturn a + b\n', 'change.new_text')
    H.eq('edit_file calc.go', seen.label, 'change.label')
    H.eq('\treturn a + b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'buffer')
    H.eq(false, vim.api.nvim_buf_get_option(b, 'modified'), 'saved')
    H.eq('\treturn a + b', disk(path)[4], 'disk')
  end)

  H.test('review: a rejection answers "rejected by user" and touches nothing', function()
    local b, path = open(H, calc)
    local tick = vim.api.nvim_buf_get_changedtick(b)
    local res = review.handle({ edit = fix_edit(path, nil) }, 'utf-16', cfg({
      review = function(_, done)
        done(false)
      end,
    }))
    H.eq({ applied = false, failureReason = 'rejected by user' }, res, 'result')
    H.eq(calc, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
    H.eq(tick, vim.api.nvim_buf_get_changedtick(b), 'changedtick')
    H.eq(calc, disk(path), 'disk')
  end)

  H.test('review: a function may decide later (timer), and save_after_apply = false leaves the buffer modified', function()
    local b, path = open(H, calc)
    local res = review.handle({ edit = fix_edit(path, nil) }, 'utf-16', cfg({
      save_after_apply = false,
      review = function(_, done)
        vim.defer_fn(function()
          done(true)
        end, 30)
      end,
    }))
    H.eq({ applied = true }, res, 'result')
    H.eq('\treturn a + b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'buffer')
    H.eq(true, vim.api.nvim_buf_get_option(b, 'modified'), 'not saved')
    H.eq(calc, disk(path), 'disk unchanged')
  end)

  H.test('review: the function gets the hunks, and done takes a per-hunk answer', function()
    local b, path = open(H, calc)
    local u = vim.uri_from_fname(path)
    local edit = {
      documentChanges = {
        {
          textDocument = { uri = u, version = vim.NIL },
          edits = {
            { range = { start = { line = 0, character = 8 }, ['end'] = { line = 0, character = 12 } }, newText = 'sum', annotationId = 'h1' },
            { range = { start = { line = 3, character = 10 }, ['end'] = { line = 3, character = 11 } }, newText = '+', annotationId = 'h2' },
          },
        },
      },
      changeAnnotations = {
        h1 = { label = 'calc.go: line 1', needsConfirmation = true },
        h2 = { label = 'calc.go: line 4', needsConfirmation = true },
      },
    }
    local seen
    local res = review.handle({ edit = edit }, 'utf-16', cfg({
      review = function(change, done)
        seen = change.hunks
        done({ false, true })
      end,
    }))
    H.eq({ applied = true }, res, 'result')
    H.eq(2, #seen, 'hunks')
    H.eq('calc.go: line 1', seen[1].label, 'first label')
    H.eq({ 'package calc' }, seen[1].old, 'first hunk old')
    H.eq({ 'package sum' }, seen[1].new, 'first hunk new')
    H.eq({ '\treturn a - b' }, seen[2].old, 'second hunk old')
    H.eq({ '\treturn a + b' }, seen[2].new, 'second hunk new')
    local want = vim.deepcopy(calc)
    want[4] = '\treturn a + b'
    H.eq(want, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'only the second hunk applied')
    H.eq(want, disk(path), 'saved')
  end)

  H.test('review UI: "a" and "r" decide the hunk under the cursor (key loop)', function()
    local b, path = open(H, calc)
    local edit = fix_edit(path, nil)
    table.insert(edit.documentChanges[1].edits, 1, {
      range = { start = { line = 0, character = 8 }, ['end'] = { line = 0, character = 12 } },
      newText = 'sum',
      annotationId = 'agent',
    })
    vim.api.nvim_feedkeys('ra', 't', false) -- reject hunk 1, accept hunk 2
    H.eq({ applied = true }, review.handle({ edit = edit, label = 'multi_edit' }, 'utf-16', cfg({})), 'result')
    H.eq('package calc', vim.api.nvim_buf_get_lines(b, 0, 1, false)[1], 'hunk 1 rejected')
    H.eq('\treturn a + b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'hunk 2 accepted')
  end)

  H.test('review: review = false applies without asking', function()
    local b, path = open(H, calc)
    H.eq({ applied = true }, review.handle({ edit = fix_edit(path, nil) }, 'utf-16', cfg({ review = false })), 'result')
    H.eq('\treturn a + b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'buffer')
  end)

  H.test('review: an edit older than the buffer is refused with a reason, not skipped silently', function()
    local b, path = open(H, calc)
    vim.lsp.util.buf_versions[b] = 7
    local res = review.handle({ edit = fix_edit(path, 5) }, 'utf-16', cfg({
      review = function(_, done)
        done(true)
      end,
    }))
    vim.lsp.util.buf_versions[b] = nil
    H.eq(false, res.applied, 'applied')
    H.contains(res.failureReason, 'changed in the editor after the edit was made (buffer version 7, edit version 5)', 'reason')
    H.eq(calc, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
  end)

  H.test('review UI: blocking key loop (main thread, as on 0.7) accepts with "a"', function()
    local b, path = open(H, calc)
    vim.api.nvim_feedkeys('ja', 't', false) -- scroll once, then accept
    local res = review.handle({ edit = fix_edit(path, nil), label = 'edit_file' }, 'utf-16', cfg({}))
    H.eq({ applied = true }, res, 'result')
    H.eq('\treturn a + b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'buffer')
    H.eq(1, #vim.api.nvim_list_wins(), 'review window closed')
  end)

  H.test('review UI: inside a coroutine (0.10+) the float waits for keys; "r" rejects', function()
    local b, path = open(H, calc)
    local prev = vim.api.nvim_get_current_win()
    local res
    coroutine.wrap(function()
      res = review.handle({ edit = fix_edit(path, nil), label = 'edit_file' }, 'utf-16', cfg({}))
    end)()
    H.eq(nil, res, 'still waiting for the user')
    local float = vim.api.nvim_get_current_win()
    H.truthy(float ~= prev, 'review window focused')
    local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), '\n')
    H.contains(text, '+\treturn a + b', 'diff shown')
    H.contains(text, 'a/r accept/reject hunk', 'keys shown')
    vim.api.nvim_feedkeys('r', 'x', false)
    H.wait(1000, function()
      return res ~= nil
    end, 'the answer')
    H.eq({ applied = false, failureReason = 'rejected by user' }, res, 'result')
    H.eq(calc, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
    H.eq(prev, vim.api.nvim_get_current_win(), 'focus back')
  end)

  H.test('review UI: concurrent edits are reviewed one at a time', function()
    local b, path = open(H, calc)
    local res1, res2
    local e2 = fix_edit(path, nil)
    e2.documentChanges[1].edits[1] = { range = { start = { line = 0, character = 8 }, ['end'] = { line = 0, character = 12 } }, newText = 'calcs' }
    coroutine.wrap(function()
      res1 = review.handle({ edit = fix_edit(path, nil) }, 'utf-16', cfg({ save_after_apply = false }))
    end)()
    coroutine.wrap(function()
      res2 = review.handle({ edit = e2 }, 'utf-16', cfg({ save_after_apply = false }))
    end)()
    H.eq(2, #vim.api.nvim_list_wins(), 'one review window at a time')
    vim.api.nvim_feedkeys('a', 'x', false)
    H.wait(1000, function()
      return res1 ~= nil and #vim.api.nvim_list_wins() == 2
    end, 'the second review (res1 ' .. vim.inspect(res1) .. ', windows ' .. #vim.api.nvim_list_wins() .. ')')
    H.eq({ applied = true }, res1, 'first')
    H.eq(nil, res2, 'second still open')
    vim.api.nvim_feedkeys('a', 'x', false)
    H.wait(1000, function()
      return res2 ~= nil
    end, 'the second answer')
    H.eq({ applied = true }, res2, 'second')
    H.eq({ 'package calcs', '', 'func Add(a, b int) int {', '\treturn a + b', '}' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'both applied')
    vim.cmd('silent! bwipe!')
  end)
end

-- The plugin's part of the stale-edit policy: an edit pinned to a version
-- the buffer no longer has is not applied, and the answer names it
-- (failedChange) so cb-ls merges and asks again. Nothing is merged here.
local review = require('catbuddy.review')
local config = require('catbuddy.config')

local function calc_buffer(H)
  local path = H.write(H.tmpdir() .. '/calc.go', { 'package calc', '', 'func Add(a, b int) int {', '\treturn a - b', '}' })
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local b = vim.api.nvim_get_current_buf()
  vim.lsp.util.buf_versions[b] = vim.api.nvim_buf_get_changedtick(b)
  return b, path
end

-- fix_edit pins the fix of line 4 to version v, after a file creation
-- (so failedChange must count it).
local function fix_edit(path, v)
  return {
    documentChanges = {
      { kind = 'create', uri = vim.uri_from_fname(path .. '.new'), options = { ignoreIfExists = true } },
      {
        textDocument = { uri = vim.uri_from_fname(path), version = v },
        edits = { { range = { start = { line = 3, character = 10 }, ['end'] = { line = 3, character = 11 } }, newText = '+' } },
      },
    },
  }
end

local function typed(b, line)
  vim.api.nvim_buf_set_lines(b, -1, -1, false, { line })
  vim.lsp.util.buf_versions[b] = vim.api.nvim_buf_get_changedtick(b)
end

return function(H)
  H.test('stale: an edit stale on arrival is refused before it is shown, naming the document', function()
    local b, path = calc_buffer(H)
    local v = vim.lsp.util.buf_versions[b]
    typed(b, '// typed before the edit came')
    local shown = false
    local cfg = assert(config.resolve({
      review = function(_, done)
        shown = true
        done(true)
      end,
    }))
    local res = review.handle({ edit = fix_edit(path, v) }, 'utf-16', cfg)
    vim.lsp.util.buf_versions[b] = nil
    H.eq(false, res.applied, 'applied')
    H.eq(1, res.failedChange, 'failedChange: the TextDocumentEdit, after the CreateFile')
    H.contains(res.failureReason, 'changed in the editor after the edit was made', 'reason')
    H.eq(false, shown, 'the review was not shown')
    H.eq('\treturn a - b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'nothing applied')
    H.eq(0, vim.fn.filereadable(path .. '.new'), 'the file operation was not made either')
  end)

  H.test('stale: typing during the review refuses the accepted edit and keeps the typing', function()
    local b, path = calc_buffer(H)
    local v = vim.lsp.util.buf_versions[b]
    local cfg = assert(config.resolve({
      review = function(_, done)
        typed(b, '// typed meanwhile')
        vim.defer_fn(function()
          done(true)
        end, 10)
      end,
    }))
    local res = review.handle({ edit = fix_edit(path, v) }, 'utf-16', cfg)
    vim.lsp.util.buf_versions[b] = nil
    H.eq(false, res.applied, 'applied')
    H.eq(1, res.failedChange, 'failedChange')
    H.eq({ 'package calc', '', 'func Add(a, b int) int {', '\treturn a - b', '}', '// typed meanwhile' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer: the typing, not the edit')
  end)

  H.test('stale: an edit at the buffer\'s version is applied', function()
    local b, path = calc_buffer(H)
    local res = review.handle({ edit = fix_edit(path, vim.lsp.util.buf_versions[b]) }, 'utf-16', assert(config.resolve({ review = false })))
    vim.lsp.util.buf_versions[b] = nil
    H.eq({ applied = true }, res, 'result')
    H.eq('\treturn a + b', vim.api.nvim_buf_get_lines(b, 3, 4, false)[1], 'applied')
  end)
end

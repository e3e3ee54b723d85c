local rebase = require('catbuddy.rebase')
local review = require('catbuddy.review')
local config = require('catbuddy.config')

local function merged(base, mine, theirs)
  local steps, why = rebase.plan(base, mine, theirs)
  if not steps then
    return nil, why
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, vim.split(mine:gsub('\n$', ''), '\n', { plain = true }))
  rebase.apply(b, steps)
  local out = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') .. '\n'
  vim.api.nvim_buf_delete(b, { force = true })
  return out
end

return function(H)
  H.test('rebase: separate changes are both kept', function()
    local base = 'a\nb\nc\nd\ne\nf\ng\n'
    local cases = {
      -- mine adds at the top, theirs changes lower down
      { 'top\na\nb\nc\nd\ne\nf\ng\n', 'a\nb\nc\nd\nE\nf\ng\n', 'top\na\nb\nc\nd\nE\nf\ng\n' },
      -- mine appends, theirs deletes and inserts above
      { 'a\nb\nc\nd\ne\nf\ng\nend\n', 'a\nX\nY\nd\ne\nf\ng\n', 'a\nX\nY\nd\ne\nf\ng\nend\n' },
      -- mine deletes a line, theirs inserts after a later one
      { 'a\nc\nd\ne\nf\ng\n', 'a\nb\nc\nd\ne\nnew\nf\ng\n', 'a\nc\nd\ne\nnew\nf\ng\n' },
    }
    for i, c in ipairs(cases) do
      local got, why = merged(base, c[1], c[2])
      H.eq(c[3], got, 'case ' .. i .. (why and (' ' .. why) or ''))
    end
  end)

  H.test('rebase: changes that meet are a conflict', function()
    local got, why = merged('a\nb\nc\n', 'a\nB\nc\n', 'a\nbb\nc\n')
    H.eq(nil, got, 'merged')
    H.contains(why, 'overlaps changes made in the editor', 'reason')
  end)

  H.test('review: typing during the review is kept along with the accepted edit', function()
    local path = H.write(H.tmpdir() .. '/calc.go', { 'package calc', '', 'func Add(a, b int) int {', '\treturn a - b', '}' })
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local b = vim.api.nvim_get_current_buf()
    local v = vim.api.nvim_buf_get_changedtick(b)
    vim.lsp.util.buf_versions[b] = v
    local edit = {
      documentChanges = {
        {
          textDocument = { uri = vim.uri_from_fname(path), version = v },
          edits = { { range = { start = { line = 3, character = 10 }, ['end'] = { line = 3, character = 11 } }, newText = '+' } },
        },
      },
    }
    local res
    local cfg = assert(config.resolve({
      review = function(_, done)
        -- The user types at the end while the diff is shown.
        vim.api.nvim_buf_set_lines(b, -1, -1, false, { '// typed meanwhile' })
        vim.lsp.util.buf_versions[b] = vim.api.nvim_buf_get_changedtick(b)
        vim.defer_fn(function()
          done(true)
        end, 10)
      end,
    }))
    res = review.handle({ edit = edit }, 'utf-16', cfg)
    vim.lsp.util.buf_versions[b] = nil
    H.eq({ applied = true }, res, 'result')
    local want = { 'package calc', '', 'func Add(a, b int) int {', '\treturn a + b', '}', '// typed meanwhile' }
    H.eq(want, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
    H.eq(want, vim.fn.readfile(path), 'disk')
  end)
end

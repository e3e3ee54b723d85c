local E = require('e2e.env')

-- A run whose one edit has two hunks: the comment (line 3) and the
-- return (line 5).
local two_hunks = {
  { tool_calls = { { name = 'read_file', args = { path = 'calc.go' } } } },
  {
    tool_calls = {
      {
        name = 'multi_edit',
        args = {
          path = 'calc.go',
          edits = {
            { old_string = '// Add returns the sum of a and b.', new_string = '// Add adds a and b.' },
            { old_string = 'return a - b', new_string = 'return a + b' },
          },
        },
      },
    },
  },
  { text = 'Done.' },
}

local half = { 'package calc', '', '// Add adds a and b.', 'func Add(a, b int) int {', '\treturn a - b', '}' }

-- review_keys answers the next review window with keys: typed ahead on
-- 0.7 (the handler reads them with getchar() before it returns), fed once
-- the window is open on 0.10+ (it waits without blocking the editor).
local function review_keys(H, keys, main, during)
  if vim.fn.has('nvim-0.10') == 0 then
    vim.api.nvim_feedkeys(keys, 't', false)
    during()
    return nil
  end
  during()
  H.wait(15000, function()
    return vim.api.nvim_get_current_win() ~= main
  end, 'the review window')
  local shown = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  vim.api.nvim_feedkeys(keys, 'x', false)
  return shown
end

return function(H)
  H.test('e2e: review per hunk (a on one, r on the other) and :CatbuddyUndo restores the file', function()
    local model = E.model(H, two_hunks)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, { review = true })
      local b = E.open(H, path)
      local main = vim.api.nvim_get_current_win()
      local shown
      local run = E.wait_run(H, function(cb)
        shown = review_keys(H, 'ar', main, function()
          require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
        end)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      if shown then
        H.contains(shown, '@@ 1/2 calc.go: line 3 @@', 'first hunk header')
        H.contains(shown, '@@ 2/2 calc.go: line 5 @@\n-\treturn a - b\n+\treturn a + b', 'second hunk')
      end
      H.eq(half, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer: only the accepted hunk')
      H.eq(half, vim.fn.readfile(path), 'disk: only the accepted hunk')
      local reqs = model.requests()
      H.contains(E.body(reqs[#reqs]), 'Applied 1 of 2 hunks to calc.go; the user rejected hunk 2 (line 5', 'the model was told which hunk')

      review_keys(H, 'a', main, function()
        vim.cmd('CatbuddyUndo')
      end)
      H.wait(15000, function()
        return vim.deep_equal(E.buggy, vim.fn.readfile(path))
      end, 'the undo to land on disk')
      H.eq(E.buggy, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer after :CatbuddyUndo')
      H.eq(E.buggy, vim.fn.readfile(path), 'disk after :CatbuddyUndo')
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

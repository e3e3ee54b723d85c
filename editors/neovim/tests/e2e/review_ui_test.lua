local E = require('e2e.env')

return function(H)
  H.test('e2e: the built-in review window shows the diff and "a" accepts it', function()
    local model = E.model(H, E.fix_turns)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, { review = true })
      local b = E.open(H, path)
      local main = vim.api.nvim_get_current_win()
      local shown
      if vim.fn.has('nvim-0.10') == 0 then
        -- 0.7: the handler reads keys with getchar() before it returns.
        vim.api.nvim_feedkeys('a', 't', false)
      end
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
        if vim.fn.has('nvim-0.10') == 1 then
          -- 0.10+: the window waits; the editor stays usable meanwhile.
          H.wait(15000, function()
            return vim.api.nvim_get_current_win() ~= main
          end, 'the review window')
          shown = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
          H.eq('diff', vim.api.nvim_buf_get_option(0, 'filetype'), 'diff highlighting')
          vim.api.nvim_feedkeys('a', 'x', false)
        end
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      if shown then
        H.contains(shown, '-\treturn a - b\n+\treturn a + b', 'diff in the window')
      end
      H.eq(main, vim.api.nvim_get_current_win(), 'focus back in the code window')
      H.eq(E.fixed, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
      H.eq(E.fixed, vim.fn.readfile(path), 'disk')
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

-- A command's pending files that the server flags, through the real cb-ls:
-- :CatbuddyPending's quickfix list says that .envrc runs later and shows a
-- link as one whole-file entry with its label, before anything is kept.
local E = require('e2e.env')

return function(H)
  H.test('e2e: pending flags: runs later and a whole-file link are in the quickfix list', function()
    local model = E.model(H, {
      { tool_calls = { { name = 'exec', args = { command = "echo 'export X=1' > .envrc && ln -s calc.go lnk", write = true, reason = 'set up' } } } },
      { text = 'done' },
    })
    local orig_select = vim.ui.select
    vim.ui.select = function(items, _, on_choice)
      for _, a in ipairs(items) do
        if a.title == 'Run' then
          return on_choice(a)
        end
      end
      on_choice(nil)
    end
    local ok, e = pcall(function()
      local dir, path = E.project(H)
      E.setup(H, model, { review = 'pending' })
      E.open(H, path)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      local pending = require('catbuddy.pending')
      H.wait(10000, function()
        return pending.count() >= 2
      end, 'the two pending files')
      H.eq(nil, vim.loop.fs_lstat(dir .. '/.envrc'), '.envrc is pending, not on disk')
      vim.cmd('CatbuddyPending')
      local texts = {}
      for _, it in ipairs(vim.fn.getqflist()) do
        texts[#texts + 1] = it.text
      end
      local all = table.concat(texts, '\n')
      H.contains(all, '.envrc', 'the .envrc entry')
      H.contains(all, '(runs later: direnv loads it on cd)', 'the .envrc entry says it runs later')
      H.contains(all, 'lnk: link -> calc.go', 'the link is one entry with its label')
      vim.cmd('cclose')
    end)
    vim.ui.select = orig_select
    E.teardown(model)
    assert(ok, e)
  end)
end

-- exec's question in Neovim: the server's window/showMessageRequest goes
-- through vim.ui.select (replaced here by a recorder that picks an item,
-- as a user's picker would). Run runs the command; Reject runs nothing and
-- the model is told.
local E = require('e2e.env')

local function pick(title, seen)
  local orig = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    seen.prompt = opts.prompt
    seen.items = vim.tbl_map(function(a)
      return opts.format_item(a)
    end, items)
    for _, a in ipairs(items) do
      if a.title == title then
        return on_choice(a)
      end
    end
    on_choice(nil)
  end
  return function()
    vim.ui.select = orig
  end
end

return function(H)
  for _, case in ipairs({
    { answer = 'Run', created = true, told = 'approved by the user' },
    { answer = 'Reject', created = false, told = 'the user rejected running this command; nothing ran' },
  }) do
    H.test('e2e: exec asks with vim.ui.select before a command writes; ' .. case.answer, function()
      local model = E.model(H, {
        { tool_calls = { { name = 'exec', args = { command = 'cp calc.go calc_copy.go', write = true, reason = 'keep a copy' } } } },
        { text = 'done' },
      })
      local seen = {}
      local restore = pick(case.answer, seen)
      local ok, e = pcall(function()
        local dir, path = E.project(H)
        E.setup(H, model, {})
        E.open(H, path)
        local run = E.wait_run(H, function(cb)
          require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
        end)
        H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
        H.contains(seen.prompt or '', 'cp calc.go calc_copy.go', 'the question names the command')
        H.contains(seen.prompt or '', 'in ' .. dir, 'the question names the directory')
        H.contains(seen.prompt or '', 'Reason: keep a copy', 'the question gives the reason')
        -- Reject first: pickers that put the cursor on the first item
        -- (Telescope, fzf-lua) then make a stray Enter a no.
        H.eq({ 'Reject', 'Run', 'Always allow "cp"' }, seen.items, 'the actions, the safe one first')
        H.eq(case.created, vim.fn.filereadable(dir .. '/calc_copy.go') == 1, 'calc_copy.go exists')
        H.contains(E.body(model.requests()[2]), case.told, 'the model is told')
      end)
      restore()
      E.teardown(model)
      assert(ok, e)
    end)
  end
end

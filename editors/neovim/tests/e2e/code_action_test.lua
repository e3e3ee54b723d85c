local E = require('e2e.env')

-- choose makes vim.ui.select pick the item whose title is title; items are
-- {client_id, action} on 0.7 and {action = …, ctx = …} on 0.10+.
local function choose(title, seen)
  return function(items, _, on_choice)
    for _, it in ipairs(items) do
      local action = it.action or it[2]
      seen[#seen + 1] = action.title
      if action.title == title then
        return on_choice(it)
      end
    end
    on_choice(nil)
  end
end

return function(H)
  H.test('e2e: "Agent: Fix This" from vim.lsp.buf.code_action() runs with every source\'s diagnostics', function()
    local model = E.model(H, E.fix_turns)
    local select = vim.ui.select
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {
        review = function(_, done)
          done(true)
        end,
      })
      local b = E.open(H, path)
      local ns = vim.api.nvim_create_namespace('e2e-vet')
      vim.diagnostic.set(ns, b, { { lnum = 4, col = 1, end_lnum = 4, end_col = 13, message = 'vet: Add returns a - b', severity = 2, source = 'vet' } })
      vim.api.nvim_win_set_cursor(0, { 5, 1 })
      local last = require('catbuddy.runs').last
      local titles = {}
      vim.ui.select = choose('Agent: Fix This', titles)
      vim.lsp.buf.code_action()
      local run = E.wait_new_run(H, last)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.eq(E.fixed, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
      H.contains(E.body(model.requests()[1]), 'vet: Add returns a - b', 'the vet diagnostic reached the model')
    end)
    vim.ui.select = select
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: :CatbuddyTranscript shows the run, :checkhealth catbuddy sees the client', function()
    local model = E.model(H, { { text = 'It adds two ints (or should).' } })
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {})
      E.open(H, path)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').explain({ line1 = 4, line2 = 6, range = 2 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      vim.cmd('CatbuddyTranscript')
      H.wait(5000, function()
        return vim.api.nvim_buf_get_name(0):match('^catbuddy://transcript/') ~= nil
      end, 'the transcript buffer')
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      H.contains(text, 'It adds two ints (or should).', 'transcript holds the answer')
      H.eq('markdown', vim.api.nvim_buf_get_option(0, 'filetype'), 'markdown')
      vim.cmd('checkhealth catbuddy')
      local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      H.contains(health, 'version: cb-ls', 'binary version')
      H.contains(health, 'running', 'client running')
      H.contains(health, 'no language servers of its own running', 'catbuddy.status asked: an explain run starts none')
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

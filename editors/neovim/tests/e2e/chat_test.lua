local E = require('e2e.env')

-- The chat buffer: streaming into it, a reply from its prompt, and a run
-- picked with :CatbuddyRuns after cb-ls restarted, then continued.
return function(H)
  local function keys(k)
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(k, true, false, true), 'x', false)
  end
  local function chat_text()
    local chat = require('catbuddy.chat')
    local buf = vim.fn.bufnr(chat.name)
    return buf ~= -1 and table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') or ''
  end
  local function type_prompt(text)
    local chat = require('catbuddy.chat')
    local buf = vim.fn.bufnr(chat.name)
    vim.api.nvim_set_current_win(chat.window())
    vim.api.nvim_buf_set_lines(buf, -2, -1, false, { text })
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  end

  H.test('e2e: :CatbuddyChat streams a run, <C-c> cancels it, <CR> sends a reply with the history', function()
    local model = E.model(H, {
      { tool_calls = { { name = 'read_file', args = { path = 'calc.go' } } } },
      { text = 'Add looks wrong: it subtracts b from a, and callers expect a sum', hang = true, after = 3 },
      { text = 'Keep Add(a, b int) and add AddInts(xs ...int).' },
    })
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {})
      local src = E.open(H, path)
      vim.cmd('CatbuddyChat')
      local chat = require('catbuddy.chat')
      H.truthy(chat.window(), 'the chat window')
      vim.cmd('wincmd p')
      require('catbuddy').explain({ bufnr = src, line1 = 4, line2 = 6, range = 2 })
      -- The text streams in while the run goes on.
      H.wait(15000, function()
        return chat_text():find('Add looks', 1, true) ~= nil
      end, 'the streamed text in the chat (got:\n' .. chat_text() .. ')')
      local run = chat.current()
      H.truthy(run and not run.outcome, 'the run is still going while its text shows')
      H.contains(chat_text(), '- `read_file calc.go`', 'the tool row')
      H.contains(chat_text(), 'running', 'the running marker')

      vim.api.nvim_set_current_win(chat.window())
      keys('<C-c>')
      H.wait(10000, function()
        return run.outcome ~= nil
      end, 'the run to be cancelled')
      H.eq('cancelled', run.outcome, 'outcome')

      type_prompt('no, keep the old signature and add an overload')
      keys('<CR>')
      H.wait(15000, function()
        return chat_text():find('AddInts', 1, true) ~= nil and run.outcome ~= nil
      end, 'the reply\'s answer in the chat (got:\n' .. chat_text() .. ')')
      H.eq('done', run.outcome, 'the reply\'s outcome')
      local text = chat_text()
      H.contains(text, '## You\n\nno, keep the old signature and add an overload', 'the reply as a user message')
      H.eq(1, select(2, text:gsub('# Agent: Explain This', '')), 'one run, two turns in the chat')
      H.eq('', chat.prompt(), 'the prompt is cleared after sending')

      local reqs = model.requests()
      H.eq(3, #reqs, 'model requests')
      local body = E.body(reqs[3])
      H.contains(body, 'read_file', 'the reply carries the first turn\'s tool call')
      H.contains(body, 'package calc', 'the reply carries the tool result')
      H.contains(body, 'no, keep the old signature and add an overload', 'the reply carries the new input')

      keys('q')
      H.eq(nil, chat.window(), 'q closes the chat')
      vim.cmd('CatbuddyChat')
      H.truthy(chat.window(), ':CatbuddyChat opens it again')
      vim.cmd('CatbuddyChat')
      H.eq(nil, chat.window(), ':CatbuddyChat toggles it closed')
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: :CatbuddyRuns picks a stored run after a restart and <C-s> continues it', function()
    local turns = vim.deepcopy(E.fix_turns)
    turns[#turns + 1] = { text = 'Yes: Add returns a + b now.' }
    local model = E.model(H, turns)
    local select = vim.ui.select
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, { review = false })
      local src = E.open(H, path)
      local first = E.wait_run(H, function(cb)
        require('catbuddy').fix({ bufnr = src, line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', first.outcome, 'first run (' .. tostring(first.error) .. ')')
      vim.cmd('silent! write')

      -- cb-ls restarts: the plugin's clients go, a new one comes.
      local compat = require('catbuddy.compat')
      for _, c in ipairs(compat.get_clients({ name = 'catbuddy' })) do
        compat.stop(c)
      end
      H.wait(5000, function()
        return #compat.get_clients({ name = 'catbuddy' }) == 0
      end, 'the old cb-ls to stop')
      vim.cmd('silent! %bwipe!')
      E.open(H, path)

      local offered
      vim.ui.select = function(items, opts, on_choice)
        offered = vim.tbl_map(opts.format_item, items)
        on_choice(items[1])
      end
      vim.cmd('CatbuddyRuns')
      local chat = require('catbuddy.chat')
      H.wait(10000, function()
        return chat.window() ~= nil
      end, 'the picked run in the chat')
      H.truthy(offered and offered[1]:find('done', 1, true) and offered[1]:find('calc.go', 1, true), 'the list shows outcome and files: ' .. vim.inspect(offered))
      H.contains(chat_text(), 'Fixed: Add subtracted instead of adding.', 'the stored run\'s history')
      local run = chat.current()
      H.eq(first.id, run.id, 'the run picked')

      type_prompt('')
      keys('Adoes it add now?<C-s>')
      H.wait(15000, function()
        return run.outcome == 'done' and chat_text():find('Add returns a + b now', 1, true) ~= nil
      end, 'the continued run\'s answer (got:\n' .. chat_text() .. ')')
      local reqs = model.requests()
      local body = E.body(reqs[#reqs])
      H.contains(body, 'Fixed: Add subtracted instead of adding.', 'the continued run carries the history')
      H.contains(body, 'does it add now?', 'and the reply')
    end)
    vim.ui.select = select
    E.teardown(model)
    assert(ok, e)
  end)
end

local E = require('e2e.env')

-- editors/testdata/custom_commands.json: one customCommands setting, the
-- commands cb-ls makes of it and its warning. The server's tests and the
-- VS Code e2e suite assert the same file.
local fixture_path = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h') .. '/testdata/custom_commands.json'

return function(H)
  H.test('e2e: custom_commands are checked by the server: the fixture\'s commands and warning', function()
    local fx = vim.json.decode(table.concat(vim.fn.readfile(fixture_path), '\n'))
    local model = E.model(H, { { text = 'Tests written (not really).' } })
    local notes, restore = H.capture_notify()
    local ok, e = pcall(function()
      local _, path = E.project(H)
      -- As the user wrote it: the plugin passes it on unchecked.
      E.setup(H, model, { custom_commands = fx.customCommands })
      local b, c = E.open(H, path)
      local function warnings()
        local out = {}
        for _, n in ipairs(notes) do
          if n.level == vim.log.levels.WARN and tostring(n.msg):find('invalid settings', 1, true) then
            out[#out + 1] = n.msg
          end
        end
        return out
      end
      H.wait(10000, function()
        return #warnings() > 0
      end, 'the warning about the invalid commands (notifications: ' .. vim.inspect(notes) .. ')')
      H.eq({ fx.message }, warnings(), 'the warning')
      local res = require('catbuddy.compat').request_sync(c, 'workspace/executeCommand', { command = 'catbuddy.listCommands', arguments = {} }, 5000, b)
      H.eq(fx.commands, res and res.result, 'catbuddy.listCommands')
      local completed = vim.fn.getcompletion('CatbuddyRun ', 'cmdline')
      table.sort(completed)
      H.eq({ 'ask', 'explain', 'fix', 'tests' }, completed, ':CatbuddyRun completion')
      -- The accepted "tests" is the first one of that id.
      local last = require('catbuddy.runs').last
      vim.cmd('4,6CatbuddyRun tests')
      local run = E.wait_new_run(H, last)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.contains(E.body(model.requests()[1]), 'Write table tests for', 'the accepted prompt reached the model')
      H.eq({ fx.message }, warnings(), 'the warning, once, after the run read the settings again')
    end)
    restore()
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: :CatbuddyRun runs a custom command, completed from the server', function()
    local model = E.model(H, { { text = 'Tests written (not really).' } })
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {
        custom_commands = { tests = { title = 'Agent: Write tests', prompt = 'Write table tests for ${selection} in ${file}' } },
      })
      E.open(H, path)
      H.wait(5000, function()
        return vim.tbl_contains(vim.fn.getcompletion('CatbuddyRun ', 'cmdline'), 'tests')
      end, 'completion to offer "tests" (got ' .. vim.inspect(vim.fn.getcompletion('CatbuddyRun ', 'cmdline')) .. ')')
      local last = require('catbuddy.runs').last
      vim.cmd('4,6CatbuddyRun tests')
      local run = E.wait_new_run(H, last)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.contains(E.body(model.requests()[1]), 'Write table tests for', 'the custom prompt reached the model')
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: :CatbuddyCancel cancels a running run', function()
    local model = E.model(H, { { hang = true, text = 'never finished' } })
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {})
      E.open(H, path)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
        -- Cancel once the model has been asked (it never answers).
        H.wait(10000, function()
          return #model.requests() >= 1
        end, 'the model request')
        vim.cmd('CatbuddyCancel')
      end)
      H.eq('cancelled', run.outcome, 'outcome')
      H.eq(E.buggy, vim.fn.readfile(path), 'nothing written')
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: a second run on a busy buffer is a warning, not an error', function()
    local model = E.model(H, { { hang = true, text = 'never finished' } })
    local notes, restore = H.capture_notify()
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {})
      E.open(H, path)
      local refused
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
        H.wait(10000, function()
          return #model.requests() >= 1
        end, 'the model request')
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, function(err)
          refused = err or false
        end)
        H.wait(10000, function()
          return refused ~= nil
        end, 'the second run to be answered')
        vim.cmd('CatbuddyCancel')
      end)
      H.eq('cancelled', run.outcome, 'outcome of the first run')
      H.truthy(refused, 'the second run is refused')
      H.eq(-32803, refused.code, 'RequestFailed')
      local shown
      for _, n in ipairs(notes) do
        if tostring(n.msg):find('already has a run', 1, true) then
          shown = n
        end
      end
      H.truthy(shown, 'the refusal is shown')
      H.eq(vim.log.levels.WARN, shown.level, 'the refusal is a warning')
      H.truthy(shown.msg:find(':CatbuddyCancel', 1, true), 'it says how to cancel: ' .. shown.msg)
      H.eq(1, #model.requests(), 'the refused run never reached the model')
    end)
    restore()
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: a failed run is one error notification', function()
    local model = E.model(H, { { status = 401, error = 'invalid api key' } })
    -- Whatever the server shows through window/showMessage is counted as a
    -- notification too (Neovim 0.7's own handler does not use vim.notify).
    local show_message = vim.lsp.handlers['window/showMessage']
    vim.lsp.handlers['window/showMessage'] = function(_, params)
      vim.notify(params.message, params.type == 1 and vim.log.levels.ERROR or vim.log.levels.INFO)
    end
    local notes, restore = H.capture_notify()
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {})
      E.open(H, path)
      local last = require('catbuddy.runs').last
      vim.cmd('CatbuddyAsk why does Add subtract?')
      -- The server sends any message about the end before the end event.
      local run = E.wait_new_run(H, last)
      H.eq('error', run.outcome, 'outcome')
      local errors = {}
      for _, n in ipairs(notes) do
        if n.level == vim.log.levels.ERROR then
          errors[#errors + 1] = n.msg
        end
      end
      H.eq(1, #errors, 'error notifications: ' .. vim.inspect(notes))
      H.contains(errors[1], 'failed: ', 'the notification')
      H.contains(errors[1], 'invalid api key', 'the notification')
    end)
    restore()
    vim.lsp.handlers['window/showMessage'] = show_message
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: open_transcript opens the run\'s transcript in a split when it ends', function()
    local model = E.model(H, { { text = 'It subtracts.' } })
    local ok, e = pcall(function()
      local dir, path = E.project(H)
      E.setup(H, model, { open_transcript = true })
      E.open(H, path)
      local last = require('catbuddy.runs').last
      vim.cmd('CatbuddyAsk why?')
      local run = E.wait_new_run(H, last)
      H.eq('done', run.outcome, 'outcome')
      local shown
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        local name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w))
        -- Transcripts live in the user's state directory, never in the project.
        if name:find(vim.env.XDG_STATE_HOME .. '/catbuddy/folders/', 1, true) and name:find('/sessions/', 1, true) and name:match('%.md$') then
          shown = name
        end
      end
      H.truthy(shown, 'a window shows the transcript')
      H.contains(table.concat(vim.fn.readfile(shown), '\n'), 'It subtracts.', 'the transcript')
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

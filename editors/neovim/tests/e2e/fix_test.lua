local E = require('e2e.env')

-- typing_review is a review that, the first time it is shown, accepts
-- after the user typed a line at the end of the buffer buf() (the plugin
-- then refuses the edit as stale and cb-ls asks again with it merged
-- over the typing), and accepts at once after that. Each change it was
-- shown is added to seen.
local function typing_review(buf, seen)
  return function(change, done)
    seen[#seen + 1] = change
    if #seen == 1 then
      vim.api.nvim_buf_set_lines(buf(), -1, -1, false, { '// typed during review' })
    end
    vim.defer_fn(function()
      done(true)
    end, 200)
  end
end

-- merged_review checks what typing_review saw: the edit asked twice, the
-- second time merged over the typing.
local function merged_review(H, seen)
  H.eq(2, #seen, 'reviews: the edit, and again merged over the typing')
  H.contains(seen[2].label or '', 'merged with your typing', 'the second review says why')
  H.contains(seen[2].diff, '// typed during review', 'the second review shows the buffer with the typing')
end

return function(H)
  H.test('e2e: :CatbuddyFix on a range, review accepts, buffer fixed and saved; other sources\' diagnostics reach the model', function()
    local model = E.model(H, E.fix_turns)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      local seen
      E.setup(H, model, {
        review = function(change, done)
          seen = change
          done(true)
        end,
      })
      local b = E.open(H, path)
      -- A diagnostic from another source (a linter's namespace): Neovim's
      -- own code-action request would not carry it.
      local ns = vim.api.nvim_create_namespace('e2e-linter')
      vim.diagnostic.set(ns, b, { { lnum = 4, col = 1, end_lnum = 4, end_col = 13, message = 'Add subtracts its arguments', severity = 1, source = 'e2e-linter' } })
      local notes, restore = H.capture_notify()
      local last = require('catbuddy.runs').last
      vim.cmd('4,6CatbuddyFix')
      local run = E.wait_new_run(H, last)
      restore()
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.eq(E.fixed, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
      H.eq(false, vim.api.nvim_buf_get_option(b, 'modified'), 'buffer saved')
      H.eq(E.fixed, vim.fn.readfile(path), 'disk')
      H.eq(vim.uri_from_fname(path), seen.uri, 'review change.uri')
      H.contains(seen.diff, '-\treturn a - b\n+\treturn a + b', 'review change.diff')
      H.eq(table.concat(E.fixed, '\n') .. '\n', seen.new_text, 'review change.new_text')
      local answered = false
      for _, n in ipairs(notes) do
        answered = answered or (n.msg or ''):find('Fixed: Add subtracted', 1, true) ~= nil
      end
      H.truthy(answered, 'final answer shown via vim.notify: ' .. vim.inspect(notes))
      local reqs = model.requests()
      H.eq(3, #reqs, 'model requests')
      H.contains(E.body(reqs[1]), 'Add subtracts its arguments', 'first prompt carries the linter diagnostic')
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: a rejected edit leaves the buffer untouched and the agent is told', function()
    local turns = vim.deepcopy(E.fix_turns)
    turns[3] = { text = 'Understood, I left calc.go as it was.' }
    local model = E.model(H, turns)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      local asked = 0
      E.setup(H, model, {
        review = function(_, done)
          asked = asked + 1
          done(false)
        end,
      })
      local b = E.open(H, path)
      local tick = vim.api.nvim_buf_get_changedtick(b)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1, input = 'make Add add' }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.eq(1, asked, 'review asked once')
      H.eq(E.buggy, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer untouched')
      H.eq(tick, vim.api.nvim_buf_get_changedtick(b), 'no change at all')
      H.eq(E.buggy, vim.fn.readfile(path), 'disk untouched')
      local reqs = model.requests()
      H.eq(3, #reqs, 'model requests')
      H.contains(E.body(reqs[1]), 'make Add add', 'instruction in the prompt')
      H.contains(E.body(reqs[3]), 'rejected by user', 'the agent is told')
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: typing during the run is not lost (before the edit and while it is reviewed): cb-ls merges', function()
    local model = E.model(H, E.fix_turns)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      local b
      local seen = {}
      E.setup(H, model, {
        review = typing_review(function()
          return b
        end, seen),
      })
      b = E.open(H, path)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
        -- Typed as soon as the run started.
        vim.api.nvim_buf_set_lines(b, 0, 0, false, { '// typed first' })
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      local want = vim.list_extend({ '// typed first' }, vim.deepcopy(E.fixed))
      want[#want + 1] = '// typed during review'
      H.eq(want, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
      H.eq(want, vim.fn.readfile(path), 'disk')
      merged_review(H, seen)
      local told = E.body(model.requests()[3])
      H.contains(told, 'calc.go changed in the editor while this edit waited', 'the model is told of the merge')
      H.truthy(not told:find('edit not applied', 1, true), 'and not of a failure')
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: typing during a reply turn is not lost either (its edits are merged like the first turn\'s)', function()
    local model = E.model(H, {
      { text = 'Add subtracts.' },
      E.fix_turns[1],
      E.fix_turns[2],
      { text = 'Fixed in the reply.' },
    })
    local ok, e = pcall(function()
      local _, path = E.project(H)
      local b
      local seen = {}
      E.setup(H, model, {
        review = typing_review(function()
          return b
        end, seen),
      })
      local c
      b, c = E.open(H, path)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').explain({ bufnr = b, line1 = 4, line2 = 6, range = 2 }, cb)
      end)
      H.eq('done', run.outcome, 'the first turn')
      -- The reply as the chat buffer sends it: no buffer of its own.
      local answered
      require('catbuddy.client').execute(c, 'catbuddy.reply', { runId = run.id, input = 'fix it' }, nil, function(err)
        answered = err or true
      end)
      -- Typed as soon as the reply was sent, before the reply's edit.
      vim.api.nvim_buf_set_lines(b, 0, 0, false, { '// typed first' })
      H.wait(10000, function()
        return answered ~= nil
      end, 'catbuddy.reply to answer')
      H.eq(true, answered, 'catbuddy.reply')
      H.wait(30000, function()
        return run.outcome == 'done' and run.answer == 'Fixed in the reply.'
      end, 'the reply to end')
      local want = vim.list_extend({ '// typed first' }, vim.deepcopy(E.fixed))
      want[#want + 1] = '// typed during review'
      H.eq(want, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer')
      merged_review(H, seen)
    end)
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: typing on the line the edit changes is a conflict: the typing stays, the model is told', function()
    local turns = vim.deepcopy(E.fix_turns)
    turns[3] = { text = 'You changed that line yourself; I left it.' }
    local model = E.model(H, turns)
    local ok, e = pcall(function()
      local _, path = E.project(H)
      local b
      local asked = 0
      E.setup(H, model, {
        review = function(_, done)
          asked = asked + 1
          vim.api.nvim_buf_set_lines(b, 4, 5, false, { '\treturn a - b // mine' })
          vim.defer_fn(function()
            done(true)
          end, 200)
        end,
      })
      b = E.open(H, path)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.eq(1, asked, 'a conflict is not asked again')
      local want = vim.deepcopy(E.buggy)
      want[5] = '\treturn a - b // mine'
      H.eq(want, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'buffer: exactly the typing')
      local told = E.body(model.requests()[3])
      H.contains(told, 'edit not applied: calc.go changed in the editor while the edit waited', 'the model is told')
      H.contains(told, 'touch the lines this edit changes', 'why')
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

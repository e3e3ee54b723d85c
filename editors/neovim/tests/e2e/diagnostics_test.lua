local E = require('e2e.env')

-- tool_result returns the content of the last tool message of a recorded
-- OpenAI request.
local function tool_result(req)
  local out
  for _, m in ipairs(req.body.messages or {}) do
    if m.role == 'tool' then
      out = m.content
    end
  end
  return type(out) == 'string' and out or vim.json.encode(out)
end

return function(H)
  H.test('e2e: an edit that breaks the code: its result names the new diagnostic of another namespace, not the old one', function()
    local model = E.model(H, {
      { tool_calls = { { name = 'edit_file', args = { path = 'calc.go', old_string = 'return a - b', new_string = 'return total' } } } },
      { text = 'I broke it.' },
    })
    local ok, e = pcall(function()
      local _, path = E.project(H)
      E.setup(H, model, {
        review = function(_, done)
          done(true)
        end,
      })
      local b = E.open(H, path)
      -- A compiler of our own: it checks the buffer a moment after each
      -- change, in its own namespace, as a linter plugin would.
      local ns = vim.api.nvim_create_namespace('e2e-compiler')
      local old = { lnum = 2, col = 0, message = 'comment on exported function Add', severity = 2, source = 'e2e-lint' }
      local function check()
        local ds = { old }
        for i, l in ipairs(vim.api.nvim_buf_get_lines(b, 0, -1, false)) do
          local col = l:find('total', 1, true)
          if col then
            ds[#ds + 1] = { lnum = i - 1, col = col - 1, end_col = col + 4, message = 'undefined: total', severity = 1, source = 'e2e-compiler' }
          end
        end
        vim.diagnostic.set(ns, b, ds)
      end
      check()
      vim.api.nvim_buf_attach(b, false, {
        on_lines = function()
          vim.defer_fn(check, 100)
        end,
      })
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      local reqs = model.requests()
      H.eq(2, #reqs, 'model requests')
      local res = tool_result(reqs[2])
      H.contains(res, 'Edited calc.go', 'edit result')
      H.contains(res, 'After this edit, e2e-compiler reports:\ncalc.go:5:9 error: undefined: total (new)', 'the new error is named')
      H.truthy(not res:find('comment on exported', 1, true), 'the old warning is not repeated: ' .. res)
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

-- Test environment for the e2e tests: a scripted model server, a project
-- in a temporary directory, and the plugin set up against both.
local E = {}

--- model starts the scriptmodel program with turns; it returns
--- {url, requests(), stop()}.
function E.model(H, turns)
  local dir = H.tmpdir()
  local script = dir .. '/script.json'
  local record = dir .. '/requests.jsonl'
  vim.fn.writefile({ vim.json.encode({ turns = turns }) }, script)
  local url
  local stderr = {}
  local job = vim.fn.jobstart({ vim.env.SCRIPTMODEL, '--script', script, '--record', record }, {
    on_stdout = function(_, data)
      for _, l in ipairs(data) do
        if not url and l:match('^http') then
          url = l
        end
      end
    end,
    on_stderr = function(_, data)
      vim.list_extend(stderr, data)
    end,
  })
  H.truthy(job > 0, 'scriptmodel started')
  H.wait(10000, function()
    return url ~= nil
  end, 'the scriptmodel URL (stderr: ' .. table.concat(stderr, '\n') .. ')')
  return {
    url = url,
    requests = function()
      if vim.fn.filereadable(record) == 0 then
        return {}
      end
      -- The server may be writing the last line as we read: count only
      -- complete lines (each ends with a newline).
      local f = assert(io.open(record, 'rb'))
      local data = f:read('*a')
      f:close()
      local out = {}
      for l in data:gmatch('([^\n]*)\n') do
        if l ~= '' then
          out[#out + 1] = vim.json.decode(l)
        end
      end
      return out
    end,
    stop = function()
      vim.fn.jobstop(job)
    end,
  }
end

E.buggy = { 'package calc', '', '// Add returns the sum of a and b.', 'func Add(a, b int) int {', '\treturn a - b', '}' }
E.fixed = { 'package calc', '', '// Add returns the sum of a and b.', 'func Add(a, b int) int {', '\treturn a + b', '}' }

E.fix_turns = {
  { tool_calls = { { name = 'read_file', args = { path = 'calc.go' } } } },
  { tool_calls = { { name = 'edit_file', args = { path = 'calc.go', old_string = 'return a - b', new_string = 'return a + b' } } } },
  { text = 'Fixed: Add subtracted instead of adding.' },
}

--- project makes a git-rooted project with calc.go and opens it.
function E.project(H)
  local dir = vim.fn.resolve(H.tmpdir())
  vim.fn.mkdir(dir .. '/.git', 'p')
  local path = H.write(dir .. '/calc.go', E.buggy)
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  return dir, path
end

--- setup configures the plugin for model with extra options.
function E.setup(H, model, extra)
  local opts = {
    cmd = { vim.env.CB_LS, 'serve' },
    provider = 'openai',
    model = 'scripted',
    base_url = model.url,
    api_key = 'test-key',
    notify_progress = false,
    -- The suites of the reviewed flow review each edit as it is made; the
    -- pending flow's tests ask for review = 'pending'.
    review = 'before',
  }
  for k, v in pairs(extra or {}) do
    opts[k] = v
  end
  H.truthy(require('catbuddy').setup(opts), 'setup')
end

--- open edits path and waits until cb-ls is attached and initialized.
function E.open(H, path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local b = vim.api.nvim_get_current_buf()
  local client = require('catbuddy.client')
  H.wait(10000, function()
    local c = client.get(b)
    return c ~= nil and c.initialized
  end, 'cb-ls to attach and initialize')
  return b, client.get(b)
end

--- wait_run calls start(on_result) and waits for the run's end event.
function E.wait_run(H, start)
  local run, err, answered
  start(function(e, _, r)
    answered, err, run = true, e, r
  end)
  H.wait(10000, function()
    return answered
  end, 'catbuddy.run to answer')
  H.eq(nil, err, 'catbuddy.run error')
  H.truthy(run, 'a run record')
  H.wait(30000, function()
    return run.outcome ~= nil
  end, 'the run to end')
  return run
end

--- wait_new_run waits for a run started by something else (a command or
--- a code action) after last, and for its end.
function E.wait_new_run(H, last)
  local runs = require('catbuddy.runs')
  H.wait(10000, function()
    return runs.last ~= nil and runs.last ~= last
  end, 'a new run')
  local run = runs.runs[runs.last]
  H.wait(30000, function()
    return run.outcome ~= nil
  end, 'the run to end')
  return run
end

--- teardown stops the clients and the model.
function E.teardown(model)
  local compat = require('catbuddy.compat')
  for _, c in ipairs(compat.get_clients({ name = 'catbuddy' })) do
    compat.stop(c)
  end
  vim.wait(30000, function()
    return #compat.get_clients({ name = 'catbuddy' }) == 0
  end, 20)
  if model then
    model.stop()
  end
  vim.cmd('silent! %bwipe!')
end

--- with_model runs fn(model) with a scripted model on turns, then stops
--- the clients and the model whatever happened, and fails with fn's error.
function E.with_model(H, turns, fn)
  local model = E.model(H, turns)
  local ok, e = pcall(fn, model)
  E.teardown(model)
  if not ok then
    error(e, 0)
  end
end

--- body returns request i's JSON body as text.
function E.body(req)
  return type(req.body) == 'string' and req.body or vim.json.encode(req.body)
end

return E

local E = require('e2e.env')

-- relay writes a wrapper that starts cb-ls with its stdin read from a
-- FIFO, dir/in-PID, into which the editor's bytes are copied: a
-- transport the test can break on purpose. Neovim's pipes are sockets,
-- which /proc/PID/fd/0 cannot open.
local function relay(H, dir)
  local path = dir .. '/cb-ls-relay.sh'
  H.write(path, {
    '#!/bin/sh',
    'f=' .. vim.fn.shellescape(dir) .. '/in-$$',
    'mkfifo "$f" || exit 3',
    'exec 3<&0',
    'cat <&3 >"$f" &',
    'exec ' .. vim.fn.shellescape(vim.env.CB_LS) .. ' "$@" <"$f" 3<&-',
  })
  vim.fn.setfperm(path, 'rwxr-xr-x')
  return path
end

-- server_pid returns the pid of the cb-ls child of this Neovim.
local function server_pid()
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local f = io.open('/proc/' .. pid .. '/cmdline', 'rb')
    if f then
      local cmd = f:read('*a')
      f:close()
      if cmd:find(vim.env.CB_LS, 1, true) and cmd:find('serve', 1, true) then
        return pid
      end
    end
  end
  return nil
end

return function(H)
  H.test('e2e: a cb-ls that gives up on its input exits non-zero and is restarted', function()
    H.truthy(vim.fn.isdirectory('/proc/self') == 1, '/proc, to find the server process')
    local model = E.model(H, { { text = 'unused' } })
    local ok, e = pcall(function()
      local dir, path = E.project(H)
      local fifos = vim.fn.resolve(H.tmpdir())
      E.setup(H, model, { cmd = { relay(H, fifos), 'serve' } })
      local b, first = E.open(H, path)
      local pid = server_pid()
      H.truthy(pid, 'the cb-ls process')
      -- What a broken transport would deliver: frames that are not JSON,
      -- more than the server tolerates in a row.
      local f = assert(io.open(fifos .. '/in-' .. pid, 'wb'))
      f:write(string.rep('Content-Length: 1\r\n\r\nx', 101))
      f:close()
      local restart = require('catbuddy.restart')
      local root = dir
      H.wait(15000, function()
        return restart.exits[root] ~= nil and #restart.exits[root] >= 1
      end, 'the server to exit')
      local exit = restart.exits[root][1]
      H.truthy(exit.code ~= 0, 'a non-zero exit code (got ' .. tostring(exit.code) .. ')')
      H.truthy(exit.restarted, 'the plugin restarts it')
      local client = require('catbuddy.client')
      H.wait(15000, function()
        local c = client.get(b)
        return c ~= nil and c.id ~= first.id and c.initialized
      end, 'a new cb-ls attached to the buffer')
      H.truthy(server_pid() ~= pid, 'a new process')
      -- The new server answers and holds the buffer.
      local second = client.get(b)
      local res = require('catbuddy.compat').request_sync(second, 'workspace/executeCommand',
        { command = 'catbuddy.runTool', arguments = { { name = 'read_file', arguments = { path = 'calc.go' } } } }, 10000, b)
      H.truthy(res and res.result, 'runTool answered: ' .. vim.inspect(res))
      H.contains(res.result.output, 'return a - b', 'the new server reads the buffer')
    end)
    E.teardown(model)
    assert(ok, e)
  end)
end

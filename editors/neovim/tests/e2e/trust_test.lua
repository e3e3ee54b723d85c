local E = require('e2e.env')

-- A project's .catbuddy/mcp.json runs nothing until the user trusts the
-- project: the server's question arrives through vim.ui.select naming the
-- exact command line; "Not now" starts nothing; :CatbuddyTrust asks again
-- and "Trust" starts the server without a restart; :CatbuddyUntrust stops
-- it (its stdin closes, and it says so in a file).
return function(H)
  H.test('e2e: the trust question, both answers', function()
    local model = E.model(H, { { text = 'unused' } })
    local state, orig_state = H.tmpdir(), vim.env.XDG_STATE_HOME
    local orig_select = vim.ui.select
    vim.env.XDG_STATE_HOME = state
    local ok, e = pcall(function()
      local dir, path = E.project(H)
      local marker = H.tmpdir() .. '/ran'
      local stopped = marker .. '.stopped'
      local line = ': > ' .. marker .. '; while read -r l; do :; done; : > ' .. stopped
      H.write(dir .. '/.catbuddy/mcp.json', {
        vim.json.encode({ mcpServers = { probe = { command = 'sh', args = { '-c', line } } } }),
      })
      local asked = {}
      local answer = 'Not now'
      vim.ui.select = function(items, opts, on_choice)
        asked[#asked + 1] = opts.prompt
        for i, it in ipairs(items) do
          if it.title == answer then
            return on_choice(it, i)
          end
        end
        on_choice(nil, nil)
      end
      E.setup(H, model, {})
      E.open(H, path)
      H.wait(10000, function()
        return #asked == 1
      end, 'the trust question')
      H.contains(asked[1], 'Trust the project ' .. dir .. '?', 'the question names the project')
      H.contains(asked[1], 'probe: sh -c "' .. line .. '"', 'the question names the command line')
      -- Not now: nothing runs (the server answered the question; give a started server time to show).
      vim.wait(500, function()
        return vim.fn.filereadable(marker) == 1
      end, 20)
      H.eq(0, vim.fn.filereadable(marker), 'nothing ran after Not now')

      answer = 'Trust'
      local result
      require('catbuddy').trust(true, function(_, r)
        result = r
      end)
      H.wait(10000, function()
        return result ~= nil
      end, ':CatbuddyTrust to answer')
      H.eq(true, result.trusted, 'trusted')
      H.eq(2, #asked, 'asked again by :CatbuddyTrust')
      H.wait(10000, function()
        return vim.fn.filereadable(marker) == 1
      end, 'the trusted project server to start')
      H.eq(0, vim.fn.filereadable(stopped), 'the trusted server is still running')

      vim.cmd('CatbuddyUntrust')
      H.wait(15000, function()
        return vim.fn.filereadable(stopped) == 1
      end, ':CatbuddyUntrust to stop the server')
      H.eq(2, #asked, 'untrust asks nothing')
      local status
      require('catbuddy.client').execute(require('catbuddy.client').get(0), 'catbuddy.trustStatus', nil, nil, function(_, r)
        status = r
      end)
      H.wait(5000, function()
        return status ~= nil
      end, 'catbuddy.trustStatus')
      H.eq(false, status[1].trusted, 'not trusted after :CatbuddyUntrust')
    end)
    vim.ui.select = orig_select
    vim.env.XDG_STATE_HOME = orig_state
    E.teardown(model)
    assert(ok, e)
  end)
end

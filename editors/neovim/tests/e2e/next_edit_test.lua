-- Next-edit suggestions (catbuddy.next_edit): a child Neovim, driven over
-- RPC so that it is really in insert mode, with next edits on and ghost
-- text off, changes a line of a Go file; after the pause cb-ls asks the
-- scripted model (as Ollama: POST /api/generate) for the edit that comes
-- next and sends it as a pending "nes-" hunk on the line below, which the
-- plugin draws; Tab, with the cursor next to it, keeps it into the buffer
-- and types no tab.
local E = require('e2e.env')

local SCALE = { 'package calc', '', '// Scale scales a point.', 'func Scale(x, y int) (int, int) {', '\tsx := x * 2', '\tsy := y * 2', '\treturn sx, sy', '}' }

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')

local function lua(chan, code, ...)
  return vim.rpcrequest(chan, 'nvim_exec_lua', code, { ... })
end

-- child starts a Neovim with the plugin set up with opts on path and
-- waits for cb-ls to attach; it returns the RPC channel.
local function child(H, opts, path)
  local nvim = vim.env.NVIM_BIN or vim.v.progpath
  local chan = vim.fn.jobstart({ nvim, '--embed', '--headless', '--clean', '-n', '-i', 'NONE' }, { rpc = true, cwd = vim.fn.fnamemodify(path, ':h') })
  H.truthy(chan > 0, 'the child Neovim started')
  lua(chan, [[
    local root, opts, path = ...
    vim.opt.runtimepath:prepend(root)
    vim.o.swapfile = false
    vim.notify = function() end
    require('catbuddy').setup(opts)
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
  ]], root, opts, path)
  H.wait(20000, function()
    return lua(chan, [[
      local c = require('catbuddy.client').get(0)
      return c ~= nil and c.initialized == true
    ]])
  end, 'cb-ls to attach in the child')
  return chan
end

-- shown lists the pending hunks drawn in the child's buffer: "runId first-last".
local shown_lua = [[
  local out = {}
  for _, h in ipairs(require('catbuddy.pending').hunks(vim.uri_from_bufnr(0))) do
    out[#out + 1] = h.run_id:gsub('%d+$', 'N') .. ' ' .. h.first .. '-' .. h.last
  end
  return out
]]

return function(H)
  H.test('e2e: next edit: after an edit and a pause the model\'s next edit is drawn, Tab in insert mode keeps it', function()
    local edited = vim.deepcopy(SCALE)
    edited[5] = '\tsx := x * 3'
    local next = vim.deepcopy(edited)
    next[6] = '\tsy := y * 3'
    -- The file is shorter than the 20 lines read around an edit: the
    -- region is all of it, and every request (one per pause) gets it back
    -- with the next edit.
    local turns = {}
    for i = 1, 40 do
      turns[i] = { text = '<region>\n' .. table.concat(next, '\n') .. '\n</region>' }
    end
    E.with_model(H, turns, function(model)
      local dir = vim.fn.resolve(H.tmpdir())
      vim.fn.mkdir(dir .. '/.git', 'p')
      local path = H.write(dir .. '/scale.go', SCALE)
      local chan = child(H, {
        cmd = { vim.env.CB_LS, 'serve' },
        provider = 'openai',
        model = 'scripted',
        base_url = model.url,
        api_key = 'test-key',
        notify_progress = false,
        inline_completion = { enabled = false, next_edit = true, provider = 'ollama', base_url = (model.url:gsub('/v1$', '')), model = 'nes-model' },
      }, path)
      local ok, e = pcall(function()
        lua(chan, 'vim.api.nvim_win_set_cursor(0, { 5, 1 })')
        vim.rpcrequest(chan, 'nvim_input', 'A<BS>3')
        H.wait(20000, function()
          return vim.deep_equal({ 'nes-N 5-6' }, lua(chan, shown_lua))
        end, 'the next edit on line 6 (shown: ' .. vim.inspect(lua(chan, shown_lua)) .. ')')
        H.eq(edited, lua(chan, 'return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), 'a suggestion changes nothing by itself')
        H.eq('i', vim.rpcrequest(chan, 'nvim_get_mode').mode, 'still in insert mode')

        -- The cursor is at the end of the line above the suggestion's.
        vim.rpcrequest(chan, 'nvim_input', '<Tab>')
        H.wait(10000, function()
          return vim.deep_equal(next, lua(chan, 'return vim.api.nvim_buf_get_lines(0, 0, -1, false)'))
        end, 'the kept next edit in the buffer (lines: ' .. vim.inspect(lua(chan, 'return vim.api.nvim_buf_get_lines(0, 0, -1, false)')) .. ')')
        H.wait(10000, function()
          return #lua(chan, shown_lua) == 0
        end, 'nothing pending after the keep')
        H.eq('i', vim.rpcrequest(chan, 'nvim_get_mode').mode, 'still in insert mode after Tab')

        -- What reached the model: Ollama's generate, with the change and the region.
        local asked
        for _, r in ipairs(model.requests()) do
          if r.path == '/api/generate' and r.body.system and r.body.prompt:find('<region>\n' .. table.concat(edited, '\n') .. '\n</region>', 1, true) then
            asked = r
          end
        end
        H.truthy(asked, 'a next-edit request with the region as the user left it')
        H.eq('nes-model', asked.body.model, 'the completion model')
      end)
      vim.fn.jobstop(chan)
      if not ok then
        error(e, 0)
      end
    end)
  end)
end

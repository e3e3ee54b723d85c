-- Ghost-text completions (catbuddy.inline): a child Neovim, driven over
-- RPC so that it is really in insert mode and its autocommands fire as
-- for a user, types in a Go file; cb-ls asks the scripted model (as
-- Ollama: POST /api/generate), the answer shows as virtual text at the
-- cursor (the plugin's own before 0.12, vim.lsp.inline_completion on 0.12),
-- and the plugin's accept key puts it in the buffer. Turned off in setup(),
-- nothing is asked and cb-ls is told.
local E = require('e2e.env')

local GHOST = { 'package calc', '', '// Double returns twice n.', 'func Double(n int) int {', '\t', '}' }

local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')

-- child starts a Neovim with the plugin set up with opts on path and
-- waits for cb-ls to attach; it returns the RPC channel.
local function child(H, opts, path)
  local nvim = vim.env.NVIM_BIN or vim.v.progpath
  local chan = vim.fn.jobstart({ nvim, '--embed', '--headless', '--clean', '-n', '-i', 'NONE' }, { rpc = true, cwd = vim.fn.fnamemodify(path, ':h') })
  H.truthy(chan > 0, 'the child Neovim started')
  vim.rpcrequest(chan, 'nvim_exec_lua', [[
    local root, opts, path = ...
    vim.opt.runtimepath:prepend(root)
    vim.o.swapfile = false
    _G.notes = {}
    vim.notify = function(m) table.insert(_G.notes, tostring(m)) end
    require('catbuddy').setup(opts)
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
  ]], { root, opts, path })
  H.wait(20000, function()
    return vim.rpcrequest(chan, 'nvim_exec_lua', [[
      local c = require('catbuddy.client').get(0)
      return c ~= nil and c.initialized == true
    ]], {})
  end, 'cb-ls to attach in the child')
  return chan
end

local function lua(chan, code, ...)
  return vim.rpcrequest(chan, 'nvim_exec_lua', code, { ... })
end

-- ghost returns the virtual text drawn in the child's buffer, any namespace.
local ghost_lua = [[
  local out = {}
  for _, ns in pairs(vim.api.nvim_get_namespaces()) do
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
      for _, chunk in ipairs(m[4].virt_text or {}) do
        out[#out + 1] = chunk[1]
      end
    end
  end
  return table.concat(out)
]]

-- ghost_ns_lua returns the namespace holding virtual text in the child's buffer.
local ghost_ns_lua = [[
  for name, ns in pairs(vim.api.nvim_get_namespaces()) do
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
      if m[4].virt_text then
        return name
      end
    end
  end
]]

local function opts(model, inline)
  return {
    cmd = { vim.env.CB_LS, 'serve' },
    provider = 'openai',
    model = 'scripted',
    base_url = model.url,
    api_key = 'test-key',
    notify_progress = false,
    inline_completion = inline,
  }
end

return function(H)
  H.test('e2e: inline completion: typing shows the model\'s completion as ghost text and the accept key inserts it', function()
    -- Every request gets the same answer, however many are sent.
    local turns = {}
    for i = 1, 40 do
      turns[i] = { text = 'n * 2' }
    end
    E.with_model(H, turns, function(model)
      local dir = vim.fn.resolve(H.tmpdir())
      vim.fn.mkdir(dir .. '/.git', 'p')
      local path = H.write(dir .. '/ghost.go', GHOST)
      local chan = child(H, opts(model, {
        enabled = true,
        provider = 'ollama',
        base_url = (model.url:gsub('/v1$', '')),
        model = 'fim-model',
        debounce_ms = 50,
      }), path)
      local ok, e = pcall(function()
        local sent = lua(chan, [[return require('catbuddy.client').get(0).config.settings.catbuddy.inlineCompletion]])
        H.eq({ enabled = true, provider = 'ollama', baseUrl = (model.url:gsub('/v1$', '')), model = 'fim-model' }, sent, 'the settings cb-ls reads')
        lua(chan, 'vim.api.nvim_win_set_cursor(0, { 5, 1 })')
        vim.rpcrequest(chan, 'nvim_input', 'Areturn ')
        H.wait(20000, function()
          return lua(chan, ghost_lua) == 'n * 2'
        end, 'the ghost text "n * 2" (drawn: ' .. vim.inspect(lua(chan, ghost_lua)) .. ')')
        H.eq('\treturn ', lua(chan, 'return vim.api.nvim_get_current_line()'), 'the ghost text is not in the buffer')
        -- 0.12 shows it with its own client, older ones with the plugin's.
        local want_ns = vim.fn.has('nvim-0.12') == 1 and 'nvim.lsp.inline_completion' or 'catbuddy_inline'
        H.eq(want_ns, lua(chan, ghost_ns_lua), 'who drew the ghost text')
        H.eq('i', vim.rpcrequest(chan, 'nvim_get_mode').mode, 'still in insert mode')

        vim.rpcrequest(chan, 'nvim_input', '<M-l>')
        H.wait(10000, function()
          return lua(chan, 'return vim.api.nvim_get_current_line()') == '\treturn n * 2'
        end, 'the accepted completion in the buffer (line: ' .. vim.inspect(lua(chan, 'return vim.api.nvim_get_current_line()')) .. ')')
        H.eq({ 5, #'\treturn n * 2' }, lua(chan, 'return vim.api.nvim_win_get_cursor(0)'), 'the cursor after the completion')
        H.eq('', lua(chan, ghost_lua), 'the ghost text is gone')
        H.eq('i', vim.rpcrequest(chan, 'nvim_get_mode').mode, 'still in insert mode after accepting')

        -- What reached the model: Ollama's own API, the text up to the
        -- cursor ending the prompt, the rest of the file as the suffix.
        local at
        for _, r in ipairs(model.requests()) do
          if r.path == '/api/generate' and vim.endswith(r.body.prompt, 'func Double(n int) int {\n\treturn ') then
            at = r
          end
        end
        H.truthy(at, 'a request at the cursor after "return "')
        H.eq('fim-model', at.body.model, 'the completion model')
        H.truthy(at.body.suffix:match('^\n}'), 'the suffix is the rest of the file: ' .. vim.inspect(at.body.suffix))

        -- Leaving insert mode clears any suggestion shown meanwhile.
        vim.rpcrequest(chan, 'nvim_input', '<Esc>')
        H.wait(10000, function()
          return vim.rpcrequest(chan, 'nvim_get_mode').mode == 'n'
        end, 'normal mode')
        H.eq('', lua(chan, ghost_lua), 'no ghost text in normal mode')
      end)
      vim.fn.jobstop(chan)
      if not ok then
        error(e, 0)
      end
    end)
  end)

  H.test('e2e: inline completion turned off in setup(): nothing is asked, cb-ls is told, the key is not taken', function()
    E.with_model(H, { { text = 'unused' } }, function(model)
      local dir = vim.fn.resolve(H.tmpdir())
      vim.fn.mkdir(dir .. '/.git', 'p')
      local path = H.write(dir .. '/ghost.go', GHOST)
      local chan = child(H, opts(model, { enabled = false }), path)
      local ok, e = pcall(function()
        H.eq({ enabled = false }, lua(chan, [[return require('catbuddy.client').get(0).config.settings.catbuddy.inlineCompletion]]), 'cb-ls is told')
        H.eq(true, lua(chan, [[return require('catbuddy.client').get(0).server_capabilities.inlineCompletionProvider ~= nil]]), 'the server offers completions')
        H.eq('', lua(chan, [[return vim.fn.maparg('<M-l>', 'i')]]), 'the accept key is not mapped')
        H.eq(true, lua(chan, [[
          local inline = require('catbuddy.inline')
          local b = vim.api.nvim_get_current_buf()
          if inline.native() then
            return not vim.lsp.inline_completion.is_enabled({ bufnr = b, client_id = require('catbuddy.client').get(0).id })
          end
          return inline.state[b] == nil
        ]]), 'no completion client in the buffer')
        -- setup() again with completions on turns them on in the open buffer.
        lua(chan, [[
          local o = ...
          require('catbuddy').setup(o)
        ]], opts(model, { enabled = true }))
        H.eq(true, lua(chan, [[return vim.fn.maparg('<M-l>', 'i') ~= '']]), 'the accept key is mapped')
        H.eq({ enabled = true }, lua(chan, [[return require('catbuddy.config').settings(require('catbuddy').config()).inlineCompletion]]), 'the settings sent')
      end)
      vim.fn.jobstop(chan)
      if not ok then
        error(e, 0)
      end
      H.eq({}, model.requests(), 'the model was asked nothing')
    end)
  end)
end

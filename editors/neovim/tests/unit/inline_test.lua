-- catbuddy.inline without a server: the inline_completion option and what
-- goes to cb-ls, and how an item is drawn and accepted in a buffer.
local config = require('catbuddy.config')
local inline = require('catbuddy.inline')

-- ghost returns the virtual text of the plugin's namespace in bufnr:
-- {row, col, text, pos, lines} of each mark.
local function ghost(bufnr)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, inline.ns, 0, -1, { details = true })) do
    local d = m[4]
    local lines = {}
    for _, l in ipairs(d.virt_lines or {}) do
      lines[#lines + 1] = l[1][1]
    end
    out[#out + 1] = { m[2], m[3], d.virt_text and d.virt_text[1][1], d.virt_text_pos, lines }
  end
  return out
end

-- buffer makes a buffer with lines, current in the window, the cursor at
-- (row 1-based, col bytes), as the plugin's state knows it. The cursor may
-- be past the line's end, as in insert mode ('virtualedit' onemore).
local function buffer(lines, row, col)
  vim.o.virtualedit = 'onemore'
  local b = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_set_current_buf(b)
  vim.api.nvim_win_set_cursor(0, { row, col })
  inline.state[b] = { client_id = -1 }
  return b
end

local at = function(l, c)
  return { line = l, character = c }
end

return function(H)
  H.test('inline: the inline_completion option, its defaults and what cb-ls is sent', function()
    local cfg = assert(config.resolve({}))
    H.eq({ accept = '<M-l>', debounce_ms = 150 }, cfg.inline_completion, 'the defaults')
    H.eq(nil, config.settings(cfg).inlineCompletion, 'unset: nothing is sent, cb-ls\'s config.json decides')
    cfg = assert(config.resolve({ inline_completion = { enabled = true, provider = 'ollama', base_url = 'http://127.0.0.1:11434', model = 'qwen2.5-coder:1.5b', max_lines = 4, fim = 'qwen', accept = '<Tab>' } }))
    H.eq({ enabled = true, provider = 'ollama', baseUrl = 'http://127.0.0.1:11434', model = 'qwen2.5-coder:1.5b', maxLines = 4, fim = 'qwen' },
      config.settings(cfg).inlineCompletion, 'the server\'s inlineCompletion')
    H.eq('<Tab>', cfg.inline_completion.accept, 'accept')
    H.eq(150, cfg.inline_completion.debounce_ms, 'a default kept beside the options given')
    cfg = assert(config.resolve({ inline_completion = false }))
    H.eq({ enabled = false }, config.settings(cfg).inlineCompletion, 'false is sent: the server stops asking')
    H.eq(true, assert(config.resolve({ inline_completion = { accept = false } })).inline_completion.accept == false, 'accept = false: no key')
    for _, c in ipairs({
      { { inline_completion = 'on' }, 'inline_completion: expected a table or a boolean' },
      { { inline_completion = { enable = true } }, 'inline_completion: unknown key enable' },
      { { inline_completion = { provider = 'copilot' } }, 'inline_completion.provider: expected "ollama", "openai" or "anthropic"' },
      { { inline_completion = { debounce_ms = -1 } }, 'inline_completion.debounce_ms: expected a non-negative integer' },
      { { inline_completion = { model = 7 } }, 'inline_completion.model: expected a string' },
    }) do
      local got, err = config.resolve(c[1])
      H.eq(nil, got, vim.inspect(c[1]))
      H.contains(err, c[2], vim.inspect(c[1]))
    end
  end)

  H.test('inline: an item at the cursor is drawn there, its further lines below; accepting inserts it all', function()
    local b = buffer({ 'func f() {', '\tif x ', '}' }, 2, 6)
    H.truthy(inline.show(b, 1, 6, '\tif x ', { insertText = '{\n\t\treturn 1\n\t}', range = { start = at(1, 6), ['end'] = at(1, 6) } }), 'shown')
    local ts = string.rep(' ', vim.api.nvim_buf_get_option(b, 'tabstop'))
    local pos = vim.fn.has('nvim-0.10') == 1 and 'inline' or 'overlay'
    H.eq({ { 1, 6, '{', pos, { ts .. ts .. 'return 1', ts .. '}' } } }, ghost(b), 'the ghost text (tabs shown as spaces)')
    H.eq({ 'func f() {', '\tif x ', '}' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'nothing inserted yet')
    H.eq(true, inline.accept(b), 'accepted')
    H.eq({ 'func f() {', '\tif x {', '\t\treturn 1', '\t}', '}' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'the text with its tabs')
    H.eq({ 4, 2 }, vim.api.nvim_win_get_cursor(0), 'the cursor after the text')
    H.eq({}, ghost(b), 'no ghost text left')
    H.eq(false, inline.accept(b), 'nothing left to accept')
    inline.detach(b)
    vim.api.nvim_buf_delete(b, { force = true })
    vim.o.virtualedit = ''
  end)

  H.test('inline: a range from before the cursor shows what it adds to the typed text; a stale one is not accepted', function()
    local b = buffer({ 'x := pri' }, 1, 8)
    H.truthy(inline.show(b, 0, 8, 'x := pri', { insertText = 'println(x)', range = { start = at(0, 5), ['end'] = at(0, 8) } }), 'shown')
    H.eq('ntln(x)', ghost(b)[1][3], 'the part not typed yet')
    H.eq(true, inline.accept(b), 'accepted')
    H.eq({ 'x := println(x)' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'the range replaced')
    H.eq({ 1, 15 }, vim.api.nvim_win_get_cursor(0), 'the cursor after it')

    -- An item that does not go on from the typed text, or spans lines, is not shown.
    H.eq(false, inline.show(b, 0, 15, 'x := println(x)', { insertText = 'fmt.X', range = { start = at(0, 5), ['end'] = at(0, 15) } }), 'not the typed text')
    H.eq(false, inline.show(b, 0, 15, 'x := println(x)', { insertText = 'a', range = { start = at(0, 0), ['end'] = at(1, 0) } }), 'spans lines')
    H.eq(false, inline.show(b, 0, 15, 'x := println(x)', { insertText = { kind = 'snippet', value = '$1' } }), 'a snippet')
    H.eq({}, ghost(b), 'nothing drawn')

    -- Typing after the suggestion was drawn: accept refuses, the buffer keeps the typing.
    H.truthy(inline.show(b, 0, 15, 'x := println(x)', { insertText = ' // done' }), 'shown')
    vim.api.nvim_buf_set_text(b, 0, 15, 0, 15, { ';' })
    H.eq(false, inline.accept(b), 'stale: not accepted')
    H.eq({ 'x := println(x);' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'the typing kept, nothing inserted')
    inline.detach(b)
    vim.api.nvim_buf_delete(b, { force = true })
    vim.o.virtualedit = ''
  end)
end

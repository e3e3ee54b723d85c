-- catbuddy.inline: ghost-text completions at the cursor from the user's own
-- model (textDocument/inlineCompletion, docs/completions.md).
--
-- Neovim 0.12 has the client built in (vim.lsp.inline_completion): the
-- plugin turns it on in the buffers cb-ls attaches to and maps its accept
-- key to vim.lsp.inline_completion.get(). Before 0.12 the plugin is the
-- client: after a pause in typing in insert mode (debounce_ms) it asks cb-ls,
-- shows the first item as virtual text at the cursor (inline on 0.10, over
-- the end of the line on 0.7, the further lines as virtual lines below),
-- and clears it when the text changes, the cursor moves or insert mode
-- ends; a newer request cancels the older one ($/cancelRequest).
--
-- With inline_completion.enabled = false nothing is asked and cb-ls is told
-- (inlineCompletion.enabled = false). Unset, cb-ls's config.json decides:
-- while off there the server answers an empty list at once.
local compat = require('catbuddy.compat')

local M = {}

M.ns = vim.api.nvim_create_namespace('catbuddy_inline')
vim.cmd('highlight default link CatbuddyInline Comment')

--- state[bufnr] is the plugin's own client of a buffer (before 0.12):
--- {client_id, group, timer, request, shown}.
M.state = {}

--- native reports whether Neovim has the built-in client (0.12+).
function M.native()
  return vim.lsp.inline_completion ~= nil and vim.lsp.inline_completion.enable ~= nil
end

--- supported reports whether the server answers textDocument/inlineCompletion.
function M.supported(client)
  local caps = client and client.server_capabilities
  return type(caps) == 'table' and caps.inlineCompletionProvider ~= nil and caps.inlineCompletionProvider ~= false
end

local function cancel(st)
  if st.timer then
    st.timer:stop()
  end
  if st.request then
    local c = vim.lsp.get_client_by_id(st.request.client_id)
    if c and not compat.is_stopped(c) then
      compat.cancel_request(c, st.request.id)
    end
    st.request = nil
  end
end

--- clear removes the ghost text of bufnr.
function M.clear(bufnr)
  local st = M.state[bufnr]
  if st then
    st.shown = nil
  end
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
end

local function cursor()
  local c = vim.api.nvim_win_get_cursor(0)
  return c[1] - 1, c[2]
end

local function in_insert(bufnr)
  return vim.api.nvim_get_current_buf() == bufnr and vim.api.nvim_get_mode().mode:sub(1, 1) == 'i'
end

-- first returns the first item of an InlineCompletionList or item array.
local function first(result)
  if type(result) ~= 'table' then
    return nil
  end
  local items = result.items or result
  return type(items) == 'table' and items[1] or nil
end

-- display turns the tabs of a ghost line into spaces: virtual text shows a
-- tab as ^I. The text accepted keeps its tabs.
local function display(bufnr, s)
  return (s:gsub('\t', string.rep(' ', vim.api.nvim_buf_get_option(bufnr, 'tabstop'))))
end

--- show draws item as ghost text at the cursor (row, col in bytes) of
--- bufnr, whose cursor line is line. An item whose range starts before
--- the cursor shows what it adds to the text typed since its start; one
--- that does not go on from that text, or spans lines, is not shown.
function M.show(bufnr, row, col, line, item)
  M.clear(bufnr)
  local text = item and item.insertText
  if type(text) ~= 'string' or text == '' then
    return false -- a snippet (cb-ls sends none) is not shown
  end
  local sc, ec = col, col
  if type(item.range) == 'table' then
    local r = item.range
    if r.start.line ~= row or r['end'].line ~= row then
      return false
    end
    sc, ec = compat.byte_col(line, r.start.character), compat.byte_col(line, r['end'].character)
    if sc > col or ec < col then
      return false
    end
    local typed = line:sub(sc + 1, col)
    if text:sub(1, #typed) ~= typed then
      return false
    end
  end
  local rest = text:sub(col - sc + 1)
  if rest == '' then
    return false
  end
  local lines = vim.split(rest, '\n', { plain = true })
  local opts = { virt_text = { { display(bufnr, lines[1]), 'CatbuddyInline' } }, hl_mode = 'combine' }
  if compat.has('0.10') then
    opts.virt_text_pos = 'inline'
  else
    -- 0.7 has no inline virtual text: over the end of the line, else after it.
    opts.virt_text_pos = col >= #line and 'overlay' or 'eol'
  end
  if #lines > 1 then
    opts.virt_lines = {}
    for i = 2, #lines do
      opts.virt_lines[#opts.virt_lines + 1] = { { display(bufnr, lines[i]), 'CatbuddyInline' } }
    end
  end
  vim.api.nvim_buf_set_extmark(bufnr, M.ns, row, col, opts)
  local st = M.state[bufnr]
  if st then
    st.shown = { row = row, col = col, sc = sc, ec = ec, text = text, tick = vim.api.nvim_buf_get_changedtick(bufnr), command = item.command }
  end
  return true
end

--- request asks cb-ls for a completion at the cursor of bufnr, replacing
--- any request still out, and shows the answer if nothing moved meanwhile.
function M.request(bufnr)
  local st = M.state[bufnr]
  if not st or not in_insert(bufnr) then
    return
  end
  local client = vim.lsp.get_client_by_id(st.client_id)
  if not client or compat.is_stopped(client) then
    return
  end
  cancel(st)
  local row, col = cursor()
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  local tick = vim.api.nvim_buf_get_changedtick(bufnr)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = row, character = compat.utf16_col(line, col) },
    context = { triggerKind = 2 }, -- Automatic: the user paused in typing
  }
  local req = { client_id = client.id }
  local ok, id = compat.request(client, 'textDocument/inlineCompletion', params, function(err, result)
    if st.request == req then
      st.request = nil
    end
    if err or M.state[bufnr] ~= st or not vim.api.nvim_buf_is_valid(bufnr) or not in_insert(bufnr) then
      return
    end
    local r, c = cursor()
    if vim.api.nvim_buf_get_changedtick(bufnr) ~= tick or r ~= row or c ~= col then
      return -- the user typed or moved on; a newer request follows
    end
    M.show(bufnr, row, col, line, first(result))
  end, bufnr)
  if ok and id then
    req.id = id
    st.request = req
  end
end

local function schedule(bufnr, ms)
  local st = M.state[bufnr]
  if not st then
    return
  end
  cancel(st)
  st.timer = st.timer or compat.uv.new_timer()
  st.timer:start(ms, 0, vim.schedule_wrap(function()
    M.request(bufnr)
  end))
end

--- accept inserts the ghost text shown in bufnr (the plugin's own, or
--- Neovim 0.12's), the cursor after it; false when none is shown.
function M.accept(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local st = M.state[bufnr]
  if not (st and st.shown) then
    if M.native() then
      return vim.lsp.inline_completion.get({ bufnr = bufnr })
    end
    return false
  end
  local s = st.shown
  M.clear(bufnr)
  local row, col = cursor()
  if vim.api.nvim_buf_get_changedtick(bufnr) ~= s.tick or row ~= s.row or col ~= s.col then
    return false
  end
  local lines = vim.split(s.text, '\n', { plain = true })
  vim.api.nvim_buf_set_text(bufnr, s.row, s.sc, s.row, s.ec, lines)
  vim.api.nvim_win_set_cursor(0, { s.row + #lines, (#lines == 1 and s.sc or 0) + #lines[#lines] })
  if s.command then
    local c = vim.lsp.get_client_by_id(st.client_id)
    if c then
      compat.request(c, 'workspace/executeCommand', { command = s.command.command, arguments = s.command.arguments }, function() end, bufnr)
    end
  end
  return true
end

local function map_accept(bufnr, lhs)
  if type(lhs) ~= 'string' or lhs == '' then
    return
  end
  vim.keymap.set('i', lhs, function()
    if not M.accept(bufnr) then
      -- Nothing to accept: the key does what it did without the plugin.
      vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(lhs, true, false, true), 'n', false)
    end
  end, { buffer = bufnr, desc = 'catbuddy: accept the inline completion' })
  local st = M.state[bufnr] or {}
  st.accept = lhs
end

-- own_attach makes the plugin the buffer's inline completion client.
local function own_attach(client, bufnr, ic)
  local st = M.state[bufnr]
  if st then
    st.client_id = client.id -- a restarted server
    st.debounce = ic.debounce_ms
    return st
  end
  st = { client_id = client.id, debounce = ic.debounce_ms }
  M.state[bufnr] = st
  st.group = vim.api.nvim_create_augroup('catbuddy_inline_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd('TextChangedI', {
    group = st.group,
    buffer = bufnr,
    callback = function()
      M.clear(bufnr)
      schedule(bufnr, st.debounce)
    end,
  })
  vim.api.nvim_create_autocmd('CursorMovedI', {
    group = st.group,
    buffer = bufnr,
    callback = function()
      local s = st.shown
      local row, col = cursor()
      if s and (row ~= s.row or col ~= s.col) then
        M.clear(bufnr)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, {
    group = st.group,
    buffer = bufnr,
    callback = function()
      cancel(st)
      M.clear(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufUnload', 'BufWipeout' }, {
    group = st.group,
    buffer = bufnr,
    callback = function()
      M.detach(bufnr)
    end,
  })
  return st
end

--- detach stops the plugin's completions in bufnr.
function M.detach(bufnr)
  local st = M.state[bufnr]
  if not st then
    return
  end
  M.state[bufnr] = nil
  cancel(st)
  if st.timer and not st.timer:is_closing() then
    st.timer:close()
  end
  pcall(vim.api.nvim_del_augroup_by_id, st.group)
  if st.accept then
    pcall(vim.keymap.del, 'i', st.accept, { buffer = bufnr })
  end
  if vim.api.nvim_buf_is_valid(bufnr) then
    vim.api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
end

--- attach turns completions on in bufnr for client, as cfg says; it is
--- the client's on_attach. Off (enabled = false) or a server without
--- inlineCompletionProvider: nothing is asked.
function M.attach(client, bufnr, cfg)
  local ic = cfg and cfg.inline_completion or {}
  if not M.supported(client) then
    return
  end
  if ic.enabled == false then
    M.off(client, bufnr)
    return
  end
  if M.native() then
    -- The client's own switch first: setup() may have turned it off.
    vim.lsp.inline_completion.enable(true, { client_id = client.id })
    vim.lsp.inline_completion.enable(true, { bufnr = bufnr })
    M.state[bufnr] = M.state[bufnr] or { client_id = client.id, native = true }
  else
    own_attach(client, bufnr, ic)
  end
  map_accept(bufnr, ic.accept)
end

--- off turns completions off for client in bufnr.
function M.off(client, bufnr)
  if M.native() then
    vim.lsp.inline_completion.enable(false, { client_id = client.id })
  end
  M.detach(bufnr)
end

--- reconfigure applies cfg to every buffer the clients are attached to
--- (setup() called again).
function M.reconfigure(clients, cfg)
  for _, c in ipairs(clients) do
    local bufs = c.attached_buffers and vim.tbl_keys(c.attached_buffers) or vim.lsp.get_buffers_by_client_id(c.id)
    for _, b in ipairs(bufs) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.detach(b)
        M.attach(c, b, cfg)
      end
    end
  end
end

return M

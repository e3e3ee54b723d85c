-- catbuddy.compat: one place for the API differences between Neovim 0.7
-- and 0.10+. Everything else calls these, so the plugin has one code path
-- and each difference is detected by feature, not by version number where
-- a feature test is possible.
local M = {}

M.uv = vim.uv or vim.loop

local function has(v)
  return vim.fn.has('nvim-' .. v) == 1
end
M.has = has

-- 0.11 made client methods take self (client:request); the dot form is
-- deprecated there and gone later.
local method_style = has('0.11')

function M.request(client, method, params, handler, bufnr)
  if method_style then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.request_sync(client, method, params, timeout_ms, bufnr)
  if method_style then
    return client:request_sync(method, params, timeout_ms, bufnr)
  end
  return client.request_sync(method, params, timeout_ms, bufnr)
end

function M.cancel_request(client, id)
  if method_style then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

function M.notify(client, method, params)
  if method_style then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.is_stopped(client)
  if client == nil then
    return true
  end
  if method_style then
    return client:is_stopped()
  end
  return client.is_stopped()
end

function M.stop(client, force)
  require('catbuddy.restart').stopped(client.id)
  if method_style then
    return client:stop(force)
  end
  return client.stop(force)
end

--- get_clients returns the clients matching filter {id?, name?, bufnr?}.
function M.get_clients(filter)
  filter = filter or {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  local all
  if filter.bufnr then
    all = vim.tbl_values(vim.lsp.buf_get_clients(filter.bufnr))
  else
    all = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, c in ipairs(all) do
    if (filter.id == nil or c.id == filter.id) and (filter.name == nil or c.name == filter.name) then
      out[#out + 1] = c
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

--- start starts a client for config (or reuses one with the same name and
--- root) and attaches it to bufnr; it returns the client id.
function M.start(config, bufnr)
  if vim.lsp.start then
    return vim.lsp.start(config, {
      bufnr = bufnr,
      reuse_client = function(client, conf)
        -- A client that is exiting is still listed while its on_exit
        -- runs; a restart must not attach to it.
        return client.name == conf.name and client.config.root_dir == conf.root_dir and not M.is_stopped(client)
      end,
    })
  end
  local id = vim.lsp.start_client(config)
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- diff returns the unified diff (hunks only) of two texts.
function M.diff(a, b, opts)
  local fn = (vim.text and vim.text.diff) or vim.diff
  return fn(a, b, opts or { ctxlen = 3 })
end

--- utf16_col converts a byte column of line to UTF-16 code units, the
--- encoding cb-ls speaks. Columns past the end clamp to the line's length.
--- set_filetype sets buf's filetype and runs its FileType autocommands,
--- whose errors are not the plugin's to report: an ftplugin that fails (0.12's
--- markdown ftplugin when its parser cannot load, an outdated parser of
--- nvim-treesitter's) must not fail the chat, the transcript or the review.
--- A pcall is not enough: the caught error still ends the command that
--- opened the buffer with E5113.
function M.set_filetype(buf, ft)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent! setlocal filetype=' .. ft)
  end)
end

function M.utf16_col(line, byte_col)
  byte_col = math.max(0, math.min(byte_col, #line))
  if has('0.11') then
    return vim.str_utfindex(line, 'utf-16', byte_col, false)
  end
  local _, u16 = vim.str_utfindex(line, byte_col)
  return u16
end

--- byte_col converts a UTF-16 column of line to a byte column.
function M.byte_col(line, u16_col)
  if has('0.11') then
    return vim.str_byteindex(line, 'utf-16', u16_col, false)
  end
  local ok, b = pcall(vim.str_byteindex, line, u16_col, true)
  return ok and b or #line
end

--- buf_version is the version Neovim reported to servers for bufnr (its
--- changedtick), or nil when no client has the buffer.
function M.buf_version(bufnr)
  local versions = vim.lsp.util.buf_versions
  local v = versions and versions[bufnr]
  if v == nil and has('0.11') and vim.api.nvim_buf_is_loaded(bufnr) then
    v = vim.api.nvim_buf_get_changedtick(bufnr)
  end
  return v
end

--- stop_semantic_tokens stops the semantic token requests 0.10+ makes
--- for client_id on bufnr, a scratch buffer about to be wiped: wiping it
--- drops the buffer's LspDetach autocommand that would stop them, and an
--- answer arriving later would read the wiped buffer. 0.7 has none.
function M.stop_semantic_tokens(bufnr, client_id)
  local st = vim.lsp.semantic_tokens
  if st and st.stop then
    pcall(st.stop, bufnr, client_id)
  end
end

--- health returns start/ok/warn/error/info for :checkhealth on 0.7
--- (require'health'.report_*) and 0.10+ (vim.health.*).
function M.health()
  local h = vim.health
  if h and h.start then
    return h
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  h = require('health')
  return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
end

--- can_yield reports whether the running code may yield: Neovim 0.10+
--- calls server-request handlers inside a coroutine, so a review can wait
--- for the user without blocking the editor; 0.7 calls them on the main
--- thread.
function M.can_yield()
  local co, main = coroutine.running()
  if co == nil or main then
    return false
  end
  return coroutine.isyieldable == nil or coroutine.isyieldable()
end

return M

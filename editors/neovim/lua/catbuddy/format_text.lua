-- catbuddy.format_text: the client side of catbuddy/formatText
-- (docs/PROTOCOL.md). cb-ls hands over the text a rename, code action or
-- replace_symbol leaves in a file before the user has kept it; language
-- servers format only buffers, so the text goes into a hidden scratch
-- buffer named as a sibling of the file (.catbuddy-format-N-<name>: the
-- server's project, root and formatter settings apply, and the leading dot
-- keeps the Go tool and most build tools from counting it as a source
-- file), the file's other language servers are attached to it, asked
-- textDocument/formatting synchronously within a bound, and the buffer is
-- wiped. The user's buffer is never touched.
local compat = require('catbuddy.compat')
local features = require('catbuddy.language_features')

local M = {}

--- timeout_ms bounds one server's formatting answer; cb-ls gives up on
--- the whole request after 20 s.
M.timeout_ms = 5000

local INVALID_PARAMS = -32602
local INTERNAL = -32603

local count = 0

local function bad(msg)
  return nil, { code = INVALID_PARAMS, message = 'catbuddy/formatText: ' .. msg }
end

-- options are the request's FormattingOptions, else the file buffer's.
local function options(params, src)
  if type(params.options) == 'table' and type(params.options.tabSize) == 'number' then
    return params.options
  end
  local sw = vim.api.nvim_buf_get_option(src, 'shiftwidth')
  if sw == 0 then
    sw = vim.api.nvim_buf_get_option(src, 'tabstop')
  end
  return { tabSize = sw, insertSpaces = vim.api.nvim_buf_get_option(src, 'expandtab') }
end

-- scratch makes the hidden buffer holding text, named beside path.
local function scratch(path, text, ft)
  count = count + 1
  local name = vim.fn.fnamemodify(path, ':h') .. '/.catbuddy-format-' .. count .. '-' .. vim.fn.fnamemodify(path, ':t')
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(b, name)
  local eol = text:sub(-1) == '\n'
  local lines = vim.split(eol and text:sub(1, -2) or text, '\n', { plain = true })
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(b, 'eol', eol)
  vim.api.nvim_buf_set_option(b, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(b, 'swapfile', false)
  -- The filetype gives the servers their languageId; no FileType
  -- autocommand may start other servers or plugins on it.
  local ei = vim.o.eventignore
  vim.o.eventignore = 'all'
  pcall(vim.api.nvim_buf_set_option, b, 'filetype', ft)
  vim.o.eventignore = ei
  return b
end

--- answer formats params.text as the file params.uri would be formatted:
--- {edits} against the text, vim.NIL when no server formats that file, or
--- nil and an error when every formatter failed.
function M.answer(params)
  if type(params) ~= 'table' or type(params.uri) ~= 'string' or type(params.text) ~= 'string' then
    return bad('want {uri, text}')
  end
  local src, clients = features.buffer(params.uri)
  local able = {}
  for _, c in ipairs(clients) do
    -- Edits are read in UTF-16, the encoding cb-ls negotiated.
    if features.supports(c, 'textDocument/formatting') and (c.offset_encoding or 'utf-16') == 'utf-16' then
      able[#able + 1] = c
    end
  end
  if #able == 0 then
    return vim.NIL
  end
  local b = scratch(vim.uri_to_fname(params.uri), params.text, vim.api.nvim_buf_get_option(src, 'filetype'))
  local opts = options(params, src)
  local errs = {}
  local ok, result = pcall(function()
    for _, c in ipairs(able) do
      vim.lsp.buf_attach_client(b, c.id)
    end
    for _, c in ipairs(able) do
      local res, err = compat.request_sync(c, 'textDocument/formatting', { textDocument = { uri = vim.uri_from_bufnr(b) }, options = opts }, M.timeout_ms, b)
      if res and res.err == nil then
        local edits = res.result
        return { edits = type(edits) == 'table' and edits or {} }
      end
      errs[#errs + 1] = string.format('%s: %s', c.name, (res and res.err and (res.err.message or vim.inspect(res.err))) or err or 'no answer')
    end
  end)
  -- 0.10+ starts semantic tokens for each client in a callback scheduled
  -- at attach: let it run, then stop them, before the buffer goes.
  local ticked = false
  vim.schedule(function()
    ticked = true
  end)
  vim.wait(1000, function()
    return ticked
  end, 5)
  for _, c in ipairs(able) do
    compat.stop_semantic_tokens(b, c.id)
  end
  pcall(vim.api.nvim_buf_delete, b, { force = true })
  if not ok then
    return nil, { code = INTERNAL, message = 'catbuddy/formatText: ' .. tostring(result) }
  end
  if result then
    return result
  end
  return nil, { code = INTERNAL, message = table.concat(errs, '; ') }
end

return M

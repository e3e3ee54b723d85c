-- catbuddy.diagnostics: the diagnostics a "Fix This" carries. Neovim's own
-- code-action request sends only the requesting server's diagnostics; the
-- agent should see every source (compilers, linters, other servers), so
-- this gathers them from all namespaces with vim.diagnostic.get.
local compat = require('catbuddy.compat')

local M = {}

local function line_text(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

-- source_of names where a diagnostic came from: its own source, else the
-- name of the namespace that produced it (e.g. "vim.lsp.gopls.1").
local function source_of(d)
  if d.source and d.source ~= '' then
    return d.source
  end
  local ns = d.namespace and vim.diagnostic.get_namespace and vim.diagnostic.get_namespace(d.namespace)
  return ns and ns.name or nil
end

--- to_lsp converts one vim.diagnostic (0-based rows, byte columns) into an
--- LSP Diagnostic (UTF-16 columns), keeping code and source.
function M.to_lsp(bufnr, d)
  local end_lnum = d.end_lnum or d.lnum
  local end_col = d.end_col or d.col
  local lsp = d.user_data and d.user_data.lsp
  local out = {
    range = {
      start = { line = d.lnum, character = compat.utf16_col(line_text(bufnr, d.lnum), d.col or 0) },
      ['end'] = { line = end_lnum, character = compat.utf16_col(line_text(bufnr, end_lnum), end_col) },
    },
    severity = d.severity,
    message = d.message,
    source = source_of(d),
    code = d.code or (type(lsp) == 'table' and lsp.code or nil),
  }
  return out
end

--- in_range returns the LSP diagnostics of bufnr, from every namespace,
--- that touch rows first..last (0-based, inclusive), ordered by position.
function M.in_range(bufnr, first, last)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local e = d.end_lnum or d.lnum
    if d.lnum <= last and e >= first then
      out[#out + 1] = d
    end
  end
  table.sort(out, function(a, b)
    if a.lnum ~= b.lnum then
      return a.lnum < b.lnum
    end
    if (a.col or 0) ~= (b.col or 0) then
      return (a.col or 0) < (b.col or 0)
    end
    return (a.severity or 9) < (b.severity or 9)
  end)
  for i, d in ipairs(out) do
    out[i] = M.to_lsp(bufnr, d)
  end
  return out
end

--- merge adds to list the diagnostics of extra that it does not already
--- hold (same range, message and source), so a code action's own
--- diagnostics and the gathered ones are not sent twice.
function M.merge(list, extra)
  local out, seen = {}, {}
  local function key(d)
    local r = d.range
    return table.concat({ r.start.line, r.start.character, r['end'].line, r['end'].character, d.message or '' }, '\0')
  end
  for _, l in ipairs({ list or {}, extra or {} }) do
    for _, d in ipairs(l) do
      local k = key(d)
      if not seen[k] then
        seen[k] = true
        out[#out + 1] = d
      end
    end
  end
  return out
end

return M

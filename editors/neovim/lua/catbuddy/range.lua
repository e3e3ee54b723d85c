-- catbuddy.range: the LSP range (UTF-16) a command works on, from a
-- command's line range or the last visual selection.
local compat = require('catbuddy.compat')

local M = {}

local function line_text(bufnr, row)
  return vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
end

-- utf8_len is the length of the UTF-8 sequence that starts with byte b.
local function utf8_len(b)
  if b >= 0xF0 then
    return 4
  elseif b >= 0xE0 then
    return 3
  elseif b >= 0xC0 then
    return 2
  end
  return 1
end

--- lines returns the LSP range covering whole lines l1..l2 (1-based,
--- inclusive): from the start of l1 to the end of l2.
function M.lines(bufnr, l1, l2)
  if l2 < l1 then
    l1, l2 = l2, l1
  end
  local last = line_text(bufnr, l2 - 1)
  return {
    start = { line = l1 - 1, character = 0 },
    ['end'] = { line = l2 - 1, character = compat.utf16_col(last, #last) },
  }
end

--- from_command returns the range for a user command's opts: the
--- characterwise visual selection when the command was run on '<,'> from a
--- charwise selection, whole lines otherwise (the current line by default).
function M.from_command(bufnr, opts)
  local l1, l2 = opts.line1, opts.line2
  if opts.range == 2 then
    local s = vim.api.nvim_buf_get_mark(bufnr, '<')
    local e = vim.api.nvim_buf_get_mark(bufnr, '>')
    local mode = vim.fn.visualmode()
    if mode == 'v' and s[1] == l1 and e[1] == l2 then
      local sl, el = line_text(bufnr, s[1] - 1), line_text(bufnr, e[1] - 1)
      -- '> holds the byte of the last selected character; the range end
      -- is exclusive, so step over that whole (maybe multibyte) character.
      local ecol = math.min(e[2], #el)
      if ecol < #el then
        ecol = ecol + utf8_len(el:byte(ecol + 1))
      end
      return {
        start = { line = s[1] - 1, character = compat.utf16_col(sl, s[2]) },
        ['end'] = { line = e[1] - 1, character = compat.utf16_col(el, ecol) },
      }
    end
  end
  return M.lines(bufnr, l1, l2)
end

return M

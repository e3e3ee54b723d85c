local diagnostics = require('catbuddy.diagnostics')
local range = require('catbuddy.range')

local function scratch(lines)
  local b = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_set_current_buf(b)
  return b
end

return function(H)
  H.test('diagnostics: every namespace in range, UTF-16 columns, ordered', function()
    local b = scratch({ 'local x = 1', 'é😀 = bad()', 'ok', 'later' })
    local ns1 = vim.api.nvim_create_namespace('catbuddy-test-compiler')
    local ns2 = vim.api.nvim_create_namespace('catbuddy-test-linter')
    -- "bad" starts at byte 9 of line 2 (é = 2 bytes, 😀 = 4 bytes): UTF-16 col 6.
    vim.diagnostic.set(ns1, b, {
      { lnum = 1, col = 9, end_lnum = 1, end_col = 12, message = 'undefined: bad', severity = 1, source = 'compiler', code = 'E1' },
      { lnum = 3, col = 0, message = 'outside', severity = 2 },
    })
    vim.diagnostic.set(ns2, b, {
      { lnum = 0, col = 6, end_lnum = 1, end_col = 0, message = 'x unused', severity = 2 },
    })
    local got = diagnostics.in_range(b, 1, 2)
    H.eq(2, #got, 'count')
    H.eq('x unused', got[1].message, 'first by position (spans into the range)')
    H.eq('catbuddy-test-linter', got[1].source, 'source from namespace name')
    H.eq({ start = { line = 1, character = 6 }, ['end'] = { line = 1, character = 9 } }, got[2].range, 'utf-16 range')
    H.eq('compiler', got[2].source, 'source')
    H.eq('E1', got[2].code, 'code')
    H.eq(1, got[2].severity, 'severity')
    H.eq(0, #diagnostics.in_range(b, 2, 2), 'no diagnostics on line 3')
  end)

  H.test('diagnostics: merge drops duplicates', function()
    local d = { range = { start = { line = 1, character = 0 }, ['end'] = { line = 1, character = 2 } }, message = 'm' }
    local e = { range = { start = { line = 2, character = 0 }, ['end'] = { line = 2, character = 2 } }, message = 'n' }
    H.eq({ d, e }, diagnostics.merge({ d }, { vim.deepcopy(d), e }), 'merged')
  end)

  H.test('range: whole lines end at the last line end in UTF-16', function()
    local b = scratch({ 'a', 'x😀y', 'c' })
    H.eq({ start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 4 } }, range.lines(b, 1, 2), 'range')
    H.eq(range.lines(b, 2, 2), range.from_command(b, { line1 = 2, line2 = 2, range = 0 }), 'default: current line')
  end)

  H.test('range: a charwise visual selection keeps its columns', function()
    local b = scratch({ 'ab😀cd', 'efgh' })
    -- Select from the emoji (byte 2) to "f" (byte 1 of line 2).
    vim.api.nvim_win_set_cursor(0, { 1, 2 })
    vim.cmd('normal! vj')
    vim.api.nvim_win_set_cursor(0, { 2, 1 })
    vim.cmd('normal! \27')
    local r = range.from_command(b, { line1 = 1, line2 = 2, range = 2 })
    H.eq({ start = { line = 0, character = 2 }, ['end'] = { line = 1, character = 2 } }, r, 'range')
  end)
end

-- The client side of catbuddy/formatText against a real gopls: the plugin
-- declares formatText, formats a text in a hidden scratch buffer beside the
-- file (never the user's buffer), and a rename by the scripted model lands
-- formatted, in one review.
local E = require('e2e.env')
local G = require('e2e.gopls')

-- entry is a struct literal aligned by gofmt; renaming err to fieldErr
-- misaligns its keys unless the rename is formatted.
local entry = {
  'package greet',
  '',
  '// Entry is one log entry.',
  'type Entry struct {',
  '\tMessage string',
  '\terr     string',
  '}',
  '',
  '// New returns an entry.',
  'func New(msg string) Entry {',
  '\treturn Entry{',
  '\t\tMessage: msg,',
  '\t\terr:     "",',
  '\t}',
  '}',
}

local function renamed(lines)
  return vim.tbl_map(function(l)
    return (l:gsub('%f[%w]err%f[^%w]', 'fieldErr'))
  end, lines)
end

-- gofmt's alignment of the renamed file.
local want = renamed(entry)
want[5], want[6] = '\tMessage  string', '\tfieldErr string'
want[12], want[13] = '\t\tMessage:  msg,', '\t\tfieldErr: "",'

-- apply applies LSP TextEdits (UTF-16, ASCII here) to lines, in a scratch buffer.
local function apply(lines, edits)
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.lsp.util.apply_text_edits(edits, b, 'utf-16')
  local out = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  vim.api.nvim_buf_delete(b, { force = true })
  return out
end

local function scratch_buffers()
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('.catbuddy-format-', 1, true) then
      out[#out + 1] = vim.api.nvim_buf_get_name(b)
    end
  end
  return out
end

return function(H)
  H.test('e2e: formatText formats a text with gopls in a scratch buffer, leaving the file buffer and the disk alone', function()
    local model = E.model(H, { { text = 'unused' } })
    local ok, e = pcall(function()
      local dir = G.project(H)
      local path = H.write(dir .. '/entry.go', entry)
      E.setup(H, model, {})
      local b, cbls = E.open(H, path)
      G.wait_gopls(H, b)
      H.eq(true, cbls.config.capabilities.experimental.catbuddy.formatText, 'the capability cb-ls was sent')
      local ft = require('catbuddy.format_text')
      local text = table.concat(renamed(entry), '\n') .. '\n'
      local res, err = ft.answer({ uri = vim.uri_from_fname(path), text = text, languageId = 'go' })
      H.eq(nil, err, 'formatText error')
      H.eq(want, apply(renamed(entry), res.edits), 'the text formatted by gopls')
      H.eq(entry, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'the file buffer is untouched')
      H.eq(false, vim.api.nvim_buf_get_option(b, 'modified'), 'the file buffer is not modified')
      H.eq({}, scratch_buffers(), 'the scratch buffer is wiped')
      H.eq({ '.git', 'entry.go', 'go.mod', 'greet.go', 'use.go' }, vim.fn.sort(vim.fn.readdir(dir)), 'no file written beside it')

      -- A formatted text needs no edit; a file type no server formats is null.
      res = ft.answer({ uri = vim.uri_from_fname(path), text = table.concat(want, '\n') .. '\n' })
      H.eq({}, res.edits, 'no edits for a formatted text')
      H.write(dir .. '/notes.txt', { 'x' })
      H.eq(vim.NIL, ft.answer({ uri = vim.uri_from_fname(dir .. '/notes.txt'), text = 'x\n' }), 'no formatter for a text file')
      local _, bad = ft.answer({ uri = 1 })
      H.contains(bad and bad.message, 'want {uri, text}', 'a malformed request is an error')
    end)
    G.teardown()
    E.teardown(model)
    assert(ok, e)
  end)

  H.test('e2e: a rename_symbol in a struct literal lands formatted by gopls through formatText, and the model is told', function()
    local model = E.model(H, {
      { tool_calls = { { name = 'rename_symbol', args = { path = 'entry.go', line = 13, symbol = 'err', new_name = 'fieldErr' } } } },
      { text = 'Renamed err to fieldErr.' },
    })
    local ok, e = pcall(function()
      local dir = G.project(H)
      local path = H.write(dir .. '/entry.go', entry)
      local reviews = 0
      E.setup(H, model, {
        review = function(_, done)
          reviews = reviews + 1
          done(true)
        end,
      })
      local b = E.open(H, path)
      G.wait_gopls(H, b)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').explain({ line1 = 11, line2 = 14, range = 2 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      local reqs = model.requests()
      H.eq(2, #reqs, 'model requests')
      local result
      for _, m in ipairs(reqs[2].body.messages or {}) do
        if m.role == 'tool' then
          result = type(m.content) == 'string' and m.content or vim.json.encode(m.content)
        end
      end
      H.contains(result, 'Rename of err to fieldErr', 'the rename result')
      H.contains(result, '(formatted by the editor.)', 'the model is told the editor formatted it')
      H.truthy(not result:find('not formatted', 1, true), 'rename result: ' .. result)
      H.eq(1, reviews, 'the rename and its formatting in one review')
      H.eq(want, vim.fn.readfile(path), 'entry.go on disk, gofmt-aligned')
      H.eq({}, scratch_buffers(), 'no scratch buffer left')
    end)
    G.teardown()
    E.teardown(model)
    assert(ok, e)
  end)
end

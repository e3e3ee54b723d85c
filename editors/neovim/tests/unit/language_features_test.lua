-- How the answers of several language servers merge into one
-- catbuddy/languageFeature result.
local lf = require('catbuddy.language_features')

local function loc(uri, line)
  return { uri = uri, range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 3 } } }
end

return function(H)
  H.test('language_features: lists concatenate, a single Location counts as one, null adds nothing', function()
    local a, b, c = loc('file:///w/a.go', 1), loc('file:///w/b.go', 2), loc('file:///w/c.go', 3)
    H.eq({ a, b, c }, lf.merge('textDocument/references', { { a, b }, vim.NIL, { c } }), 'references')
    H.eq({ a, b }, lf.merge('textDocument/definition', { a, { b } }), 'a single Location and a list')
    H.eq({}, lf.merge('textDocument/documentSymbol', { {} }), 'an empty list is an answer')
    H.eq(nil, lf.merge('textDocument/implementation', { vim.NIL }), 'only nulls: no answer')
  end)

  H.test('language_features: hover, prepareRename and formatting take the first answer that says something', function()
    local h = { contents = { kind = 'markdown', value = 'func Add' } }
    H.eq(h, lf.merge('textDocument/hover', { vim.NIL, h, { contents = 'other' } }), 'hover')
    local fmt = { { range = loc('x', 0).range, newText = '\t' } }
    H.eq(fmt, lf.merge('textDocument/formatting', { {}, fmt, { { newText = 'x' } } }), 'formatting: one formatter wins')
    H.eq(nil, lf.merge('textDocument/prepareRename', { vim.NIL, vim.NIL }), 'no answer')
  end)

  H.test('language_features: workspace edits are joined', function()
    local e1 = {
      documentChanges = { { textDocument = { uri = 'file:///w/a.go', version = 3 }, edits = { { newText = 'A' } } } },
      changeAnnotations = { one = { label = 'one' } },
    }
    local e2 = { changes = { ['file:///w/b.go'] = { { newText = 'B' } } } }
    local e3 = { changes = { ['file:///w/b.go'] = { { newText = 'C' } } }, changeAnnotations = { two = { label = 'two' } } }
    H.eq({
      changes = { ['file:///w/b.go'] = { { newText = 'B' }, { newText = 'C' } } },
      changeAnnotations = { two = { label = 'two' } },
    }, lf.merge('textDocument/rename', { e2, vim.NIL, e3 }), 'changes maps joined')
    H.eq({
      documentChanges = {
        e1.documentChanges[1],
        { textDocument = { uri = 'file:///w/b.go', version = vim.NIL }, edits = { { newText = 'B' }, { newText = 'C' } } },
      },
      changeAnnotations = { one = { label = 'one' }, two = { label = 'two' } },
    }, lf.merge('textDocument/rename', { vim.deepcopy(e1), vim.NIL, e2, e3 }), 'changes join documentChanges, which readers prefer')
    H.eq(nil, lf.merge('textDocument/rename', { vim.NIL }), 'no rename')
  end)

  H.test('language_features: bad requests are errors, not silence', function()
    local _, e = lf.answer(nil)
    H.contains(e.message, 'missing method', 'no method')
    _, e = lf.answer({ method = 'textDocument/definition' })
    H.contains(e.message, 'missing params', 'no params')
    _, e = lf.answer({ method = 'textDocument/definition', params = { position = { line = 0, character = 0 } } })
    H.contains(e.message, 'missing textDocument.uri', 'no uri')
    H.eq(-32602, e.code, 'InvalidParams')
  end)
end

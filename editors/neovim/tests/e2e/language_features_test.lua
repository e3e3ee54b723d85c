-- The client side of catbuddy/languageFeature against a real gopls: the
-- plugin declares the methods in initialize, and answers them by asking the
-- buffer's other servers (never cb-ls), merged.
local E = require('e2e.env')
local G = require('e2e.gopls')

local function rel(dir, uri)
  return vim.uri_to_fname(uri):sub(#dir + 2)
end

-- places lists "file:line" (1-based) of locations, sorted.
local function places(dir, locs)
  local out = {}
  for _, l in ipairs(locs) do
    local uri, r = l.uri or l.targetUri, l.range or l.targetSelectionRange
    out[#out + 1] = string.format('%s:%d:%d', rel(dir, uri), r.start.line + 1, r.start.character)
  end
  table.sort(out)
  return out
end

return function(H)
  H.test('e2e: languageFeature answers definition, references, symbols and rename from gopls, not cb-ls', function()
    local model = E.model(H, { { text = 'unused' } })
    local ok, e = pcall(function()
      local dir, greet = G.project(H)
      E.setup(H, model, {})
      local b, cbls = E.open(H, greet)
      G.wait_gopls(H, b)
      local lf = require('catbuddy.language_features')
      H.eq(lf.methods, cbls.config.capabilities.experimental.catbuddy.languageFeatures, 'the capability cb-ls was sent')
      H.eq(true, cbls.config.capabilities.experimental.catbuddy.runEnd, 'runEnd kept')
      local use_uri = vim.uri_from_fname(dir .. '/use.go')
      local greet_uri = vim.uri_from_fname(greet)

      -- use.go is not open: the bridge loads it and attaches gopls to it.
      -- Line 5, "Hello" at UTF-16 column 8.
      local defs, err = lf.answer({ method = 'textDocument/definition', params = { textDocument = { uri = use_uri }, position = { line = 4, character = 8 } } })
      H.eq(nil, err, 'definition error')
      H.eq({ 'greet.go:4:5' }, places(dir, defs), 'definition of Hello')

      local refs
      refs, err = lf.answer({
        method = 'textDocument/references',
        params = { textDocument = { uri = greet_uri }, position = { line = 3, character = 6 }, context = { includeDeclaration = true } },
      })
      H.eq(nil, err, 'references error')
      H.eq({ 'greet.go:4:5', 'use.go:5:28', 'use.go:5:8' }, places(dir, refs), 'references of Hello')

      local syms = lf.answer({ method = 'textDocument/documentSymbol', params = { textDocument = { uri = use_uri } } })
      H.eq('Twice', syms[1].name, 'outline of use.go')

      local hover = lf.answer({ method = 'textDocument/hover', params = { textDocument = { uri = greet_uri }, position = { line = 3, character = 6 } } })
      H.contains(hover.contents.value, 'func Hello(name string) string', 'hover')

      local prep
      prep, err = lf.answer({ method = 'textDocument/prepareRename', params = { textDocument = { uri = greet_uri }, position = { line = 3, character = 6 } } })
      H.eq(nil, err, 'prepareRename error')
      H.eq('Hello', prep.placeholder, 'prepareRename placeholder')

      local edit
      edit, err = lf.answer({ method = 'textDocument/rename', params = { textDocument = { uri = greet_uri }, position = { line = 3, character = 6 }, newName = 'Greet' } })
      H.eq(nil, err, 'rename error')
      local touched = {}
      for _, dc in ipairs(edit.documentChanges or {}) do
        touched[#touched + 1] = rel(dir, dc.textDocument.uri) .. ':' .. #dc.edits
      end
      for uri, list in pairs(edit.changes or {}) do
        touched[#touched + 1] = rel(dir, uri) .. ':' .. #list
      end
      table.sort(touched)
      H.eq({ 'greet.go:2', 'use.go:2' }, touched, 'the rename edits both files (and the doc comment)')

      local calls = lf.answer({ method = 'textDocument/prepareCallHierarchy', params = { textDocument = { uri = greet_uri }, position = { line = 3, character = 6 } } })
      H.eq('Hello', calls[1].name, 'call hierarchy item')
      local incoming
      incoming, err = lf.answer({ method = 'callHierarchy/incomingCalls', params = { item = calls[1] } })
      H.eq(nil, err, 'incomingCalls error')
      H.eq('Twice', incoming[1].from.name, 'Twice calls Hello')

      local _, bad = lf.answer({ method = 'textDocument/nope', params = {} })
      H.contains(bad and bad.message, 'unsupported method "textDocument/nope"', 'an unknown method is an error')
      _, bad = lf.answer({ method = 'callHierarchy/incomingCalls', params = { item = { name = 'x' } } })
      H.contains(bad and bad.message, 'unknown call hierarchy item', 'a foreign item is an error')
    end)
    G.teardown()
    E.teardown(model)
    assert(ok, e)
  end)
  H.test('e2e: a scripted model calls lsp definition and references and rename_symbol; gopls answers, the rename lands in both files', function()
    local model = E.model(H, {
      { tool_calls = { { name = 'lsp', args = { operation = 'definition', path = 'use.go', line = 5, symbol = 'Hello', occurrence = 2 } } } },
      { tool_calls = { { name = 'lsp', args = { operation = 'references', path = 'greet.go', line = 4, symbol = 'Hello' } } } },
      { tool_calls = { { name = 'rename_symbol', args = { path = 'greet.go', line = 4, symbol = 'Hello', new_name = 'Greet' } } } },
      { text = 'Renamed Hello to Greet.' },
    })
    local ok, e = pcall(function()
      local dir, greet, use = G.project(H)
      local reviewed = {}
      E.setup(H, model, {
        review = function(change, done)
          for _, f in ipairs(change.files) do
            reviewed[#reviewed + 1] = vim.uri_to_fname(f.uri):sub(#dir + 2)
          end
          done(true)
        end,
      })
      local b = E.open(H, greet)
      G.wait_gopls(H, b)
      local run = E.wait_run(H, function(cb)
        require('catbuddy').explain({ line1 = 4, line2 = 6, range = 2 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      local reqs = model.requests()
      H.eq(4, #reqs, 'model requests')
      local function last_result(req)
        local out
        for _, m in ipairs(req.body.messages or {}) do
          if m.role == 'tool' then
            out = type(m.content) == 'string' and m.content or vim.json.encode(m.content)
          end
        end
        return out or ''
      end
      local def = last_result(reqs[2])
      H.contains(def, 'greet.go:4: func Hello(name string) string {', 'definition told to the model')
      local refs = last_result(reqs[3])
      H.contains(refs, 'use.go:5: return Hello(name) + " " + Hello(name)', 'references: the calls in use.go')
      H.truthy(not refs:find('No reference', 1, true), 'references found: ' .. refs)
      local renamed = last_result(reqs[4])
      H.truthy(not renamed:lower():find('reject') and not renamed:lower():find('error'), 'rename result: ' .. renamed)
      H.contains(renamed, 'Greet', 'the rename result names the new name')
      H.contains(renamed, 'use.go', 'the rename result names use.go')
      local want_greet = vim.deepcopy(G.greet)
      want_greet[3], want_greet[4] = '// Greet greets name.', 'func Greet(name string) string {'
      local want_use = vim.deepcopy(G.use)
      want_use[5] = '\treturn Greet(name) + " " + Greet(name)'
      H.eq(want_greet, vim.fn.readfile(greet), 'greet.go on disk')
      H.eq(want_use, vim.fn.readfile(use), 'use.go on disk')
      table.sort(reviewed)
      H.eq({ 'greet.go', 'use.go' }, reviewed, 'both files were in the one review')
    end)
    G.teardown()
    E.teardown(model)
    assert(ok, e)
  end)
end

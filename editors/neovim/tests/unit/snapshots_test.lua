local snapshots = require('catbuddy.snapshots')

return function(H)
  H.test('snapshots: versions are kept while a run works on the buffer, and dropped after', function()
    local b = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_lines(b, 0, -1, false, { 'one', 'two' })
    local v0 = vim.api.nvim_buf_get_changedtick(b)
    vim.lsp.util.buf_versions[b] = v0
    snapshots.start(b)
    vim.api.nvim_buf_set_lines(b, 0, 0, false, { 'zero' })
    local v1 = vim.api.nvim_buf_get_changedtick(b)
    -- Taken once the buffer is quiet, as didChange is sent.
    H.wait(1000, function()
      return snapshots.get(b, v1) ~= nil
    end, 'the snapshot after a quiet spell')
    vim.api.nvim_buf_set_lines(b, -1, -1, false, { 'three' })
    H.eq({ 'one', 'two' }, snapshots.get(b, v0), 'at start')
    H.eq({ 'zero', 'one', 'two' }, snapshots.get(b, v1), 'after the first change')
    H.eq(nil, snapshots.get(b, v0 - 1), 'unknown version')
    snapshots.stop(b)
    H.eq(nil, snapshots.get(b, v0), 'dropped after stop')
    vim.lsp.util.buf_versions[b] = nil
    vim.api.nvim_buf_delete(b, { force = true })
  end)

  H.test('snapshots: a stale edit is previewed against the text it was made for', function()
    local path = H.write(H.tmpdir() .. '/calc.go', { 'func Add(a, b int) int {', '\treturn a - b', '}' })
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local b = vim.api.nvim_get_current_buf()
    local v0 = vim.api.nvim_buf_get_changedtick(b)
    vim.lsp.util.buf_versions[b] = v0
    snapshots.start(b)
    -- The user adds a line on top before the edit (made for v0) arrives.
    vim.api.nvim_buf_set_lines(b, 0, 0, false, { '// typed' })
    vim.lsp.util.buf_versions[b] = vim.api.nvim_buf_get_changedtick(b)
    local pv = assert(require('catbuddy.changes').preview({
      documentChanges = {
        { textDocument = { uri = vim.uri_from_fname(path), version = v0 }, edits = { { range = { start = { line = 1, character = 10 }, ['end'] = { line = 1, character = 11 } }, newText = '+' } } },
      },
    }, 'utf-16'))
    H.contains(pv.diff, '-\treturn a - b\n+\treturn a + b', 'diff against the old text')
    local res = require('catbuddy.apply').apply(pv.files[1] and {
      documentChanges = {
        { textDocument = { uri = vim.uri_from_fname(path), version = v0 }, edits = { { range = { start = { line = 1, character = 10 }, ['end'] = { line = 1, character = 11 } }, newText = '+' } } },
      },
    }, 'utf-16', false, pv)
    H.eq({ applied = true }, res, 'result')
    H.eq({ '// typed', 'func Add(a, b int) int {', '\treturn a + b', '}' }, vim.api.nvim_buf_get_lines(b, 0, -1, false), 'merged')
    snapshots.stop(b)
    vim.lsp.util.buf_versions[b] = nil
    vim.cmd('silent! bwipe!')
  end)
end

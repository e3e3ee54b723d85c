-- The quickfix list of :CatbuddyPending names each run by its title.
local pending = require('catbuddy.pending')
local runs = require('catbuddy.runs')

local function set(run_id, title, uri, group_uri)
  local files = {
    { uri = uri, path = 'calc.go', kind = 'changed', hunks = {
      { id = run_id .. 'h1', range = { start = { line = 1, character = 0 }, ['end'] = { line = 2, character = 0 } }, newText = 'x\n', label = 'calc.go: line 2' },
    } },
  }
  if group_uri then
    files[#files + 1] = { uri = group_uri, path = 'node_modules', kind = 'created', group = { id = 'g1', count = 3 } }
  end
  return { runId = run_id, title = title, files = files }
end

local function texts()
  local out = vim.tbl_map(function(i) return i.text end, vim.fn.getqflist())
  table.sort(out)
  return out
end

return function(H)
  H.test('pending: quickfix names runs by title, with the id when titles collide', function()
    pending.sets = {}
    local root = H.tmpdir()
    local uri = vim.uri_from_fname(root .. '/calc.go')
    local group = vim.uri_from_fname(root .. '/node_modules')
    pending.on_notification(set('r1', 'Fix calc', uri, group), 921)
    pending.quickfix()
    H.eq({ '[Fix calc] calc.go: line 2', '[Fix calc] node_modules: 3 files (created)' }, texts(), 'one run: its title')

    pending.on_notification(set('r2', 'Fix calc', uri), 921)
    pending.on_notification(set('r3', 'Explain', uri), 921)
    pending.quickfix()
    H.eq({
      '[Explain] calc.go: line 2',
      '[Fix calc (r1)] calc.go: line 2',
      '[Fix calc (r1)] node_modules: 3 files (created)',
      '[Fix calc (r2)] calc.go: line 2',
    }, texts(), 'colliding titles carry the id')
    pending.sets = {}
  end)

  H.test('pending: quickfix takes a title the set lacks from the run', function()
    pending.sets = {}
    local uri = vim.uri_from_fname(H.tmpdir() .. '/calc.go')
    runs.runs[runs.key(922, 'r7')] = { key = runs.key(922, 'r7'), id = 'r7', client_id = 922, title = 'Agent: Write tests' }
    pending.on_notification(set('r7', nil, uri), 922)
    pending.quickfix()
    H.eq({ '[Agent: Write tests] calc.go: line 2' }, texts(), 'title from the run')
    runs.runs[runs.key(922, 'r7')] = nil
    pending.sets = {}
  end)
end

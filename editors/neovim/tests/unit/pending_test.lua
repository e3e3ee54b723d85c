-- The pending-changes view against the shared fixture
-- (editors/testdata/pending_changes.json), which the VS Code extension's
-- tests assert too.
local pending = require('catbuddy.pending')
local config = require('catbuddy.config')

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local fixture = vim.fn.json_decode(table.concat(vim.fn.readfile(here .. '/../../../testdata/pending_changes.json'), '\n'))

-- load writes the fixture's file, opens it and sends the notifications as
-- client cid; it returns the buffer and the file's URI.
local function load(H, cid)
  local root = H.tmpdir()
  local path = root .. '/calc.go'
  vim.fn.writefile(vim.split(fixture.text:gsub('\n$', ''), '\n', { plain = true }), path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  local raw = vim.fn.json_encode(fixture.notifications):gsub('{{uri}}', uri):gsub('{{root}}', vim.uri_from_fname(root))
  for _, n in ipairs(vim.fn.json_decode(raw)) do
    pending.on_notification(n, cid)
  end
  return buf, uri
end

local function marks(buf)
  return vim.api.nvim_buf_get_extmarks(buf, pending.ns, 0, -1, { details = true })
end

return function(H)
  H.test('pending: the fixture is drawn: removed lines, added virtual lines, signs, count', function()
    pending.sets = {}
    local buf, uri = load(H, 901)
    H.eq(fixture.count, pending.count(), 'count')
    H.eq(fixture.count, vim.g.catbuddy_pending, 'vim.g.catbuddy_pending')
    H.eq(fixture.count .. ' pending', pending.statusline(), 'statusline')
    local hs = pending.hunks(uri)
    H.eq(#fixture.hunks, #hs, 'hunks')
    local removed, added = {}, {}
    for _, m in ipairs(marks(buf)) do
      local d = m[4]
      -- A removed line is a mark of its own (0.7 does not report its
      -- line_hl_group in the details; 0.10 does).
      if not d.virt_lines then
        H.truthy(d.line_hl_group == nil or d.line_hl_group == 'DiffDelete', 'removed line highlight')
        removed[#removed + 1] = m[2]
      end
      for _, vl in ipairs(d.virt_lines or {}) do
        local text = vl[1][1]
        if vl[1][2] == 'DiffAdd' then
          added[#added + 1] = text:sub(3)
        end
      end
    end
    local want_removed, want_added = {}, {}
    for i, fh in ipairs(fixture.hunks) do
      H.eq(fh.id, hs[i].id, 'hunk order')
      H.eq(fh.conflict == true, hs[i].conflict ~= nil, 'conflict of ' .. fh.id)
      vim.list_extend(want_removed, fh.removed)
      vim.list_extend(want_added, fh.added)
    end
    table.sort(removed)
    table.sort(want_removed)
    H.eq(want_removed, removed, 'removed lines')
    table.sort(added)
    table.sort(want_added)
    H.eq(want_added, added, 'added lines')
    vim.cmd('bwipeout!')
  end)

  H.test('pending: ]c/[c move between hunks, at() finds the hunk under the cursor', function()
    pending.sets = {}
    local buf = load(H, 902)
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    H.truthy(pending.jump(1), 'next')
    H.eq(4, vim.api.nvim_win_get_cursor(0)[1], 'first hunk line')
    H.eq('h1', pending.at(buf, 3).id, 'hunk under cursor')
    H.truthy(pending.jump(1), 'next again')
    H.eq(7, vim.api.nvim_win_get_cursor(0)[1], 'second hunk line')
    H.truthy(pending.jump(-1), 'previous')
    H.eq(4, vim.api.nvim_win_get_cursor(0)[1], 'back')
    H.eq(nil, pending.at(buf, 1), 'no hunk on line 2')
    H.eq('h2', pending.at(buf, 8).id, 'insertion found from the line above')
    vim.cmd('bwipeout!')
  end)

  H.test('pending: quickfix lists every hunk and group; an empty set clears its run', function()
    pending.sets = {}
    local buf = load(H, 903)
    H.eq(fixture.quickfix, pending.quickfix(), 'quickfix items')
    local qf = vim.fn.getqflist()
    H.contains(vim.inspect(vim.tbl_map(function(i) return i.text end, qf)), 'conflict', 'a conflict is named')
    local cleared = vim.deepcopy(fixture.cleared)
    pending.on_notification(cleared, 903)
    H.eq(fixture.countAfterClear, pending.count(), 'after clear')
    H.eq(1, #pending.summary(), 'one run left')
    H.eq('r2', pending.summary()[1].runId, 'the run left')
    vim.cmd('bwipeout!')
    H.truthy(buf, 'buffer')
  end)

  H.test('pending: keymaps are buffer-local and configurable; review maps to the server setting', function()
    local cfg = assert(config.resolve({ keymaps = { keep = '<leader>xk', undo = false } }))
    H.eq(nil, config.settings(cfg).review, 'default review: the server default, not sent')
    H.eq('before', config.settings(assert(config.resolve({ review = true }))).review, 'true is an alias of before')
    H.eq('before', config.settings(assert(config.resolve({ review = 'before' }))).review, 'before')
    local _, e = config.resolve({ review = 'sometimes' })
    H.contains(e, 'review', 'bad review')
    local buf = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_set_current_buf(buf)
    pending.attach(buf, cfg)
    local lhs = {}
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, 'n')) do
      lhs[#lhs + 1] = m.lhs
    end
    local leader = vim.g.mapleader or '\\'
    H.truthy(vim.tbl_contains(lhs, leader .. 'xk'), 'keep mapped: ' .. vim.inspect(lhs))
    H.truthy(vim.tbl_contains(lhs, ']c'), ']c mapped')
    H.eq(false, vim.tbl_contains(lhs, leader .. 'au'), 'undo left alone')
    vim.cmd('bwipeout!')
  end)
  H.test('pending: typing moves the marks; the re-sent ranges redraw only what changed', function()
    pending.sets = {}
    local buf, uri = load(H, 904)
    local function rows()
      local out = {}
      for _, m in ipairs(marks(buf)) do
        out[#out + 1] = m[2]
      end
      table.sort(out)
      return out
    end
    local before = rows()
    vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '// typed' })
    -- The server sends every hunk one line down.
    local moved = vim.fn.json_decode((vim.fn.json_encode(fixture.notifications):gsub('{{uri}}', uri):gsub('{{root}}', 'file:///x')))
    for _, n in ipairs(moved) do
      for _, f in ipairs(n.files) do
        for _, h in ipairs(f.hunks or {}) do
          h.range.start.line = h.range.start.line + 1
          h.range['end'].line = h.range['end'].line + 1
        end
      end
      pending.on_notification(n, 904)
    end
    local want = vim.tbl_map(function(r) return r + 1 end, before)
    H.eq(want, rows(), 'every mark one line down')
    -- A hunk the server moved elsewhere than its marks is drawn again there.
    moved[1].files[1].hunks[1].range.start.line = 1
    moved[1].files[1].hunks[1].range['end'].line = 2
    pending.on_notification(moved[1], 904)
    H.truthy(vim.tbl_contains(rows(), 1), 'redrawn where the server says')
    H.eq(false, vim.tbl_contains(rows(), 4), 'not left where it was')
    vim.cmd('bwipeout!')
  end)
end

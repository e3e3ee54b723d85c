-- catbuddy.review_ui: the built-in review, a floating window with the
-- proposed change hunk by hunk. a accepts the hunk under the cursor and r
-- rejects it, A accepts every hunk and R rejects every hunk, ]c / [c move
-- between hunks; y is A, and n, q, <Esc> are R (a dismissed review is no).
-- The review ends when every hunk is decided.
local changes = require('catbuddy.changes')
local compat = require('catbuddy.compat')

local M = {}

M.keys = {
  accept = { 'a' },
  reject = { 'r' },
  accept_all = { 'A', 'y' },
  reject_all = { 'R', 'n', 'q', '<Esc>' },
  next = { ']c' },
  prev = { '[c' },
}

local function mark(state)
  if state == true then
    return '  [accepted]'
  elseif state == false then
    return '  [rejected]'
  end
  return ''
end

--- lines returns the text the review window shows for change, given the
--- decisions so far (state[i]: true, false or nil), and the first row
--- (1-based) of each hunk.
function M.lines(change, state)
  state = state or {}
  local added, removed = changes.count(change.diff or '')
  local files = {}
  for _, f in ipairs(change.files or {}) do
    local name = vim.fn.fnamemodify(f.path, ':.')
    if f.kind ~= 'edit' or not (change.label or ''):find(name, 1, true) then
      files[#files + 1] = name .. (f.kind ~= 'edit' and (' (' .. f.kind .. ')') or '')
    end
  end
  local title = change.label or 'Agent edit'
  if #files > 0 then
    title = title .. ': ' .. table.concat(files, ', ')
  end
  local hunks = change.hunks or {}
  local out = {
    string.format('# %s  +%d -%d  (%d hunk%s)', title, added, removed, #hunks, #hunks == 1 and '' or 's'),
    '# a/r accept/reject hunk   A/R all   ]c/[c next/prev',
  }
  local rows = {}
  for i, h in ipairs(hunks) do
    rows[i] = #out + 1
    out[#out + 1] = string.format('@@ %d/%d %s @@%s', i, #hunks, h.label, mark(state[i]))
    for _, l in ipairs(h.old) do
      out[#out + 1] = '-' .. l
    end
    for _, l in ipairs(h.new) do
      out[#out + 1] = '+' .. l
    end
  end
  if #hunks == 0 then
    for l in (change.diff or ''):gmatch('([^\n]*)\n?') do
      out[#out + 1] = l
    end
  end
  while out[#out] == '' do
    out[#out] = nil
  end
  return out, rows
end

local function open(lines)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  compat.set_filetype(buf, 'diff')
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 2, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(3, vim.o.lines - 6))
  local wopts = {
    relative = 'editor',
    width = width,
    height = height,
    row = math.max(0, math.floor((vim.o.lines - height) / 2) - 1),
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
    style = 'minimal',
    border = 'rounded',
  }
  if compat.has('0.9') then
    wopts.title = ' catbuddy review '
  end
  -- The review keys are normal-mode keys; an edit can arrive mid-typing.
  vim.cmd('stopinsert')
  local win = vim.api.nvim_open_win(buf, true, wopts)
  vim.api.nvim_win_set_option(win, 'cursorline', true)
  -- The diff reads best on the editor's own background (0.7's default
  -- NormalFloat is magenta).
  vim.api.nvim_win_set_option(win, 'winhighlight', 'NormalFloat:Normal')
  return buf, win
end

local function close(win, prev)
  if vim.api.nvim_win_is_valid(win) then
    pcall(vim.api.nvim_win_close, win, true)
  end
  if prev and vim.api.nvim_win_is_valid(prev) then
    pcall(vim.api.nvim_set_current_win, prev)
  end
end

-- session is the state of one open review: decisions, hunk rows, and
-- the actions the keys trigger. finish(answer) ends it.
local function session(change, buf, win, finish)
  local n = math.max(1, #(change.hunks or {}))
  local state, rows = {}, {}
  local s = {}
  local function redraw()
    local lines
    lines, rows = M.lines(change, state)
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_set_option(buf, 'modifiable', true)
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
      vim.api.nvim_buf_set_option(buf, 'modifiable', false)
    end
  end
  -- current returns the hunk under the cursor (the last one starting at
  -- or above it; the first when above every hunk).
  local function current()
    local row = vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_cursor(win)[1] or 1
    local cur = 1
    for i, r in ipairs(rows) do
      if r <= row then
        cur = i
      end
    end
    return cur
  end
  local function goto_hunk(i)
    if rows[i] and vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_set_cursor(win, { rows[i], 0 })
    end
  end
  local function settle()
    for i = 1, n do
      if state[i] == nil then
        -- Move on to the next undecided hunk.
        redraw()
        goto_hunk(i)
        return
      end
    end
    local answer = {}
    for i = 1, n do
      answer[i] = state[i]
    end
    finish(answer)
  end
  function s.decide(v)
    state[current()] = v
    settle()
  end
  function s.all(v)
    for i = 1, n do
      if state[i] == nil or v == false then
        state[i] = v
      end
    end
    settle()
  end
  function s.move(d)
    goto_hunk(math.max(1, math.min(#rows, current() + d)))
  end
  redraw()
  goto_hunk(1)
  return s
end

-- actions maps each review key to what it does in session s.
local function actions(s)
  local out = {}
  local function add(keys, f)
    for _, k in ipairs(keys) do
      out[k] = f
    end
  end
  add(M.keys.accept, function() s.decide(true) end)
  add(M.keys.reject, function() s.decide(false) end)
  add(M.keys.accept_all, function() s.all(true) end)
  add(M.keys.reject_all, function() s.all(false) end)
  add(M.keys.next, function() s.move(1) end)
  add(M.keys.prev, function() s.move(-1) end)
  return out
end

-- keyloop reads keys with getchar() until a decision: on Neovim 0.7 the
-- applyEdit handler runs on the main thread and must answer before it
-- returns, so mappings could never fire.
local function keyloop(win, acts, is_done, finish)
  local by_code = {}
  for k, f in pairs(acts) do
    by_code[vim.api.nvim_replace_termcodes(k, true, false, true)] = f
  end
  local scroll = { j = 'j', k = 'k', G = 'G', g = 'gg', ['\4'] = '\4', ['\21'] = '\21', ['\6'] = '\6', ['\2'] = '\2' }
  local pending = ''
  while not is_done() do
    vim.cmd('redraw')
    local ok, c = pcall(vim.fn.getchar)
    if not ok then
      return finish(false) -- interrupted (CTRL-C)
    end
    local key = pending .. (type(c) == 'number' and vim.fn.nr2char(c) or c)
    pending = ''
    if by_code[key] then
      by_code[key]()
    elseif key == ']' or key == '[' then
      pending = key
    elseif scroll[key] and vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_call(win, function()
        vim.cmd('normal! ' .. scroll[key])
      end)
    end
  end
end

--- ask shows change and returns the user's answer: a list of booleans,
--- one per hunk (or false when the review was abandoned). wait_for is
--- review.wait_for: it yields (0.10+) or waits until done is called.
function M.ask(change, wait_for)
  local prev = vim.api.nvim_get_current_win()
  return wait_for(function(done)
    local lines = M.lines(change, {})
    local buf, win = open(lines)
    local decided = false
    local function finish(v)
      if decided then
        return
      end
      decided = true
      close(win, prev)
      done(v)
    end
    local acts = actions(session(change, buf, win, finish))
    if not compat.can_yield() then
      return keyloop(win, acts, function()
        return decided
      end, finish)
    end
    for k, f in pairs(acts) do
      vim.api.nvim_buf_set_keymap(buf, 'n', k, '', { nowait = true, noremap = true, callback = f })
    end
    -- Closing the window any other way (:q, :close) is a rejection.
    vim.api.nvim_create_autocmd('BufWipeout', {
      buffer = buf,
      once = true,
      callback = function()
        vim.schedule(function()
          finish(false)
        end)
      end,
    })
  end)
end

return M

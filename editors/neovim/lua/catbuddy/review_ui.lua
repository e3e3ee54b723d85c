-- catbuddy.review_ui: the built-in review, a floating window with the
-- proposed change as a unified diff. a/y accept; r/n/q/<Esc> reject.
local changes = require('catbuddy.changes')
local compat = require('catbuddy.compat')

local M = {}

M.accept_keys = { 'a', 'y' }
M.reject_keys = { 'r', 'n', 'q', '<Esc>' }

--- lines returns the text the review window shows for change.
function M.lines(change)
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
  local out = {
    string.format('# %s  +%d -%d', title, added, removed),
    '# a accept   r reject',
  }
  for l in (change.diff or ''):gmatch('([^\n]*)\n?') do
    out[#out + 1] = l
  end
  while out[#out] == '' do
    out[#out] = nil
  end
  return out
end

local function open(change)
  local lines = M.lines(change)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(buf, 'filetype', 'diff')
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

-- keyloop reads keys with getchar() until a decision: on Neovim 0.7 the
-- applyEdit handler runs on the main thread and must answer before it
-- returns, so mappings could never fire.
local function keyloop(win, done)
  local accept, reject = {}, {}
  for _, k in ipairs(M.accept_keys) do
    accept[vim.api.nvim_replace_termcodes(k, true, false, true)] = true
  end
  for _, k in ipairs(M.reject_keys) do
    reject[vim.api.nvim_replace_termcodes(k, true, false, true)] = true
  end
  local scroll = { j = 'j', k = 'k', G = 'G', g = 'gg', ['\4'] = '\4', ['\21'] = '\21', ['\6'] = '\6', ['\2'] = '\2' }
  while true do
    vim.cmd('redraw')
    local ok, c = pcall(vim.fn.getchar)
    if not ok then
      return done(false) -- interrupted (CTRL-C)
    end
    local key = type(c) == 'number' and vim.fn.nr2char(c) or c
    if accept[key] then
      return done(true)
    elseif reject[key] then
      return done(false)
    elseif scroll[key] and vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_call(win, function()
        vim.cmd('normal! ' .. scroll[key])
      end)
    end
  end
end

--- ask shows change and returns true when the user accepts it. wait_for
--- is review.wait_for: it yields (0.10+) or waits until done is called.
function M.ask(change, wait_for)
  local prev = vim.api.nvim_get_current_win()
  return wait_for(function(done)
    local buf, win = open(change)
    local decided = false
    local function finish(v)
      if decided then
        return
      end
      decided = true
      close(win, prev)
      done(v)
    end
    if not compat.can_yield() then
      return keyloop(win, finish)
    end
    for _, k in ipairs(M.accept_keys) do
      vim.api.nvim_buf_set_keymap(buf, 'n', k, '', { nowait = true, noremap = true, callback = function() finish(true) end })
    end
    for _, k in ipairs(M.reject_keys) do
      vim.api.nvim_buf_set_keymap(buf, 'n', k, '', { nowait = true, noremap = true, callback = function() finish(false) end })
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

-- catbuddy.snapshots: the text of a buffer at the versions its server may
-- have seen, kept only while a run works on the buffer. An edit pinned to
-- an older version than the buffer has (the user typed while the agent
-- worked, and Neovim's debounced didChange had not reached cb-ls yet) is
-- then previewed against the text it was made for and merged into the
-- buffer as it is now, instead of being applied to the wrong lines.
local compat = require('catbuddy.compat')

local M = {}

-- How many versions are kept per buffer.
M.limit = 64

-- Snapshots are taken once the buffer has been quiet this long, not on
-- every change: Neovim sends didChange after a quiet spell (150 ms by
-- default), so the versions cb-ls sees are quiet-spell versions, and a
-- copy per keystroke would make typing in a large file slow.
M.quiet_ms = 40

local store = {}

local function record(s, bufnr, version)
  if s.lines[version] == nil then
    s.order[#s.order + 1] = version
  end
  s.lines[version] = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  while #s.order > M.limit do
    s.lines[table.remove(s.order, 1)] = nil
  end
end

--- start begins recording bufnr (again counted: each start needs a stop).
function M.start(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local s = store[bufnr]
  if not s then
    s = { lines = {}, order = {}, users = 0, timer = compat.uv.new_timer() }
    store[bufnr] = s
    local fire = vim.schedule_wrap(function()
      if store[bufnr] == s and vim.api.nvim_buf_is_loaded(bufnr) then
        record(s, bufnr, vim.api.nvim_buf_get_changedtick(bufnr))
      end
    end)
    vim.api.nvim_buf_attach(bufnr, false, {
      on_lines = function(_, b)
        if store[b] ~= s then
          return true -- detach
        end
        s.timer:stop()
        s.timer:start(M.quiet_ms, 0, fire)
      end,
      on_detach = function(_, b)
        if store[b] == s then
          store[b] = nil
        end
        s.timer:stop()
      end,
    })
  end
  s.users = s.users + 1
  record(s, bufnr, compat.buf_version(bufnr) or vim.api.nvim_buf_get_changedtick(bufnr))
end

--- stop ends one start; the history goes when the last user stops.
function M.stop(bufnr)
  local s = bufnr and store[bufnr]
  if s then
    s.users = s.users - 1
    if s.users <= 0 then
      store[bufnr] = nil
      s.timer:stop()
      s.timer:close()
    end
  end
end

--- get returns bufnr's lines at version, or nil when not recorded.
function M.get(bufnr, version)
  local s = store[bufnr]
  return s and s.lines[version] and vim.deepcopy(s.lines[version]) or nil
end

return M

-- Restart of a cb-ls that exited on its own with a non-zero code (it
-- gives up on an input stream it cannot read, or crashed). Neovim's LSP
-- client does not restart servers; VS Code's client does, up to 4 times
-- in 3 minutes, and this follows the same rule. A server stopped on
-- purpose (shutdown/exit answers 0, compat.stop, Neovim exiting) is not
-- restarted.
local M = {}

M.max = 4 -- restarts allowed within M.window seconds
M.window = 180

--- exits[root] lists the last exits: {code, signal, restarted, time}.
M.exits = {}
local attached = {} -- client id → set of buffers
local stopping = {} -- client ids stopped on purpose
local recent = {} -- root → times of restarts

function M.on_attach(client, bufnr)
  attached[client.id] = attached[client.id] or {}
  attached[client.id][bufnr] = true
end

--- stopped marks a client as stopped on purpose.
function M.stopped(client_id)
  stopping[client_id] = true
end

local function notify(msg, level)
  vim.schedule(function()
    vim.notify(msg, level)
  end)
end

--- on_exit decides whether the client of root that ended gets a
--- successor; ensure(bufnr) starts one for a buffer.
function M.on_exit(root, code, signal, client_id, ensure)
  local bufs = attached[client_id] or {}
  attached[client_id] = nil
  local on_purpose = stopping[client_id]
  stopping[client_id] = nil
  local record = { code = code, signal = signal, restarted = false, time = os.time() }
  M.exits[root] = M.exits[root] or {}
  table.insert(M.exits[root], record)
  if on_purpose or (code == 0 and signal == 0) or vim.v.exiting ~= vim.NIL then
    return
  end
  local now = os.time()
  local times = {}
  for _, t in ipairs(recent[root] or {}) do
    if now - t < M.window then
      times[#times + 1] = t
    end
  end
  if #times >= M.max then
    recent[root] = times
    notify(string.format('catbuddy: cb-ls exited (code %d, signal %d) %d times in %d minutes; not restarting it. Its log says why (:checkhealth catbuddy).',
      code, signal, #times + 1, M.window / 60), vim.log.levels.ERROR)
    return
  end
  times[#times + 1] = now
  recent[root] = times
  record.restarted = true
  notify(string.format('catbuddy: cb-ls exited (code %d, signal %d); restarting it', code, signal), vim.log.levels.WARN)
  vim.schedule(function()
    for b in pairs(bufs) do
      if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_is_loaded(b) then
        ensure(b)
      end
    end
  end)
end

return M

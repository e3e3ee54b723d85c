-- catbuddy.diagnostics_request: answers the server's catbuddy/diagnostics
-- request with a document's diagnostics from every namespace
-- (vim.diagnostic.get), once they have settled after the agent's edit:
-- they changed after the buffer's last change, or the last change is older
-- than a quiet period; never later than the cap (the rule of
-- docs/PROTOCOL.md, the same as the VS Code extension's). The two durations
-- are the server's: each request carries them (params.settle).
local compat = require('catbuddy.compat')
local diagnostics = require('catbuddy.diagnostics')

local M = {}

-- old_server_rule is what servers sent before the rule travelled with the
-- request.
M.old_server_rule = { quiet_ms = 750, cap_ms = 2000 }

local function positive(v)
  return type(v) == 'number' and v > 0 and v < math.huge
end

--- rule reads params.settle of a request: the server's rule, or
--- old_server_rule when it sent none (an older server) or a malformed one.
function M.rule(params)
  local s = type(params) == 'table' and params.settle or nil
  if type(s) == 'table' and positive(s.quietMs) and positive(s.capMs) then
    return { quiet_ms = s.quietMs, cap_ms = s.capMs }
  end
  return { quiet_ms = M.old_server_rule.quiet_ms, cap_ms = M.old_server_rule.cap_ms }
end

local last_change = {} -- bufnr → uv.now() of its last change
local last_diag = {} -- bufnr → uv.now() of its last DiagnosticChanged
local attached = {}

local function now()
  return compat.uv.now()
end

-- track starts following bufnr's changes; the server asks before every
-- edit, so a buffer is followed before the agent changes it.
local function track(bufnr)
  if attached[bufnr] then
    return
  end
  attached[bufnr] = true
  vim.api.nvim_buf_attach(bufnr, false, {
    on_lines = function()
      last_change[bufnr] = now()
    end,
    on_detach = function()
      attached[bufnr], last_change[bufnr], last_diag[bufnr] = nil, nil, nil
    end,
  })
end

--- setup follows diagnostic changes; called once by the plugin's setup.
function M.setup()
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = vim.api.nvim_create_augroup('catbuddy_diagnostics_request', { clear = true }),
    callback = function(args)
      if args.buf then
        last_diag[args.buf] = now()
      end
    end,
  })
end

--- wait returns the ms to wait before answering (0: now); asked is when
--- the request came, rule the request's {quiet_ms, cap_ms}.
function M.wait(t, asked, changed, diag, rule)
  changed, diag = changed or 0, diag or 0
  if diag > changed or t - changed >= rule.quiet_ms or t - asked >= rule.cap_ms then
    return 0
  end
  return math.max(0, math.min(changed + rule.quiet_ms, asked + rule.cap_ms) - t)
end

local function sleep(ms)
  if compat.can_yield() then
    local co = coroutine.running()
    vim.defer_fn(function()
      coroutine.resume(co)
    end, ms)
    coroutine.yield()
  else
    vim.wait(ms, function()
      return false
    end, 10)
  end
end

-- The real clock: sleeps are cut into steps of at most 20 ms, so a
-- DiagnosticChanged is noticed within 20 ms.
local real_clock = {
  now = now,
  sleep = function(ms)
    sleep(math.min(ms, 20))
  end,
}

--- settle returns once the diagnostics of a buffer are settled by rule
--- ({quiet_ms, cap_ms}), and the ms it waited. times() returns the
--- buffer's last change and last diagnostics change; clock ({now, sleep})
--- defaults to the real one, tests pass their own.
function M.settle(asked, times, rule, clock)
  clock = clock or real_clock
  while true do
    local changed, diag = times()
    local w = M.wait(clock.now(), asked, changed, diag, rule)
    if w == 0 then
      return clock.now() - asked
    end
    clock.sleep(w)
  end
end

--- answer returns the LSP diagnostics of params.uri once settled.
function M.answer(params)
  local uri = params and params.uri
  if type(uri) ~= 'string' then
    return nil, { code = -32602, message = 'catbuddy/diagnostics: missing uri' }
  end
  local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
  if bufnr == -1 or not vim.api.nvim_buf_is_loaded(bufnr) then
    return {}
  end
  track(bufnr)
  M.settle(now(), function()
    return last_change[bufnr], last_diag[bufnr]
  end, M.rule(params))
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    out[#out + 1] = diagnostics.to_lsp(bufnr, d)
  end
  return out
end

return M

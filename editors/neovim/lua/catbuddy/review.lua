-- catbuddy.review: the client's own workspace/applyEdit handler. It shows
-- each proposed change as a diff and answers only when the user decided:
-- accepted edits are applied (and saved), rejected ones answer
-- { applied = false, failureReason = "rejected by user" } and touch nothing.
local apply = require('catbuddy.apply')
local changes = require('catbuddy.changes')
local compat = require('catbuddy.compat')
local hunks = require('catbuddy.hunks')

local M = {}

M.REJECTED = 'rejected by user'

-- How long a blocking wait (Neovim 0.7, or a review function that never
-- calls done) lasts before the edit counts as rejected.
M.timeout_ms = 30 * 60 * 1000

-- Reviews are shown one at a time; later edits wait their turn.
local busy = false
local queue = {}

local function notify_error(msg)
  vim.schedule(function()
    vim.notify('catbuddy: ' .. msg, vim.log.levels.ERROR)
  end)
end

-- wait_for calls register(done) and returns what was passed to done: a
-- boolean, or a table (a per-hunk answer).
-- Inside a coroutine (Neovim 0.10+ runs server-request handlers in one) it
-- yields, so the editor stays usable while the user reads the diff; on the
-- main thread it waits with vim.wait (up to timeout_ms, default
-- M.timeout_ms), which runs timers and callbacks.
local function wait_for(register, timeout_ms)
  local result, co, yielded
  if compat.can_yield() then
    co = coroutine.running()
  end
  local function done(v)
    if result ~= nil then
      return
    end
    if type(v) == 'table' then
      result = v
    else
      result = v == true
    end
    if co and yielded then
      vim.schedule(function()
        local ok, err = coroutine.resume(co)
        if not ok then
          notify_error('review: ' .. tostring(err))
        end
      end)
    end
  end
  local ok, err = pcall(register, done)
  if not ok then
    notify_error('review: ' .. tostring(err))
    return false
  end
  if result == nil then
    if co then
      yielded = true
      coroutine.yield()
    else
      vim.wait(timeout_ms or M.timeout_ms, function()
        return result ~= nil
      end, 20)
    end
  end
  if type(result) == 'table' then
    return result
  end
  return result == true
end

--- wait_for is also how catbuddy.ask waits for an answer.
M.wait_for = wait_for

-- take_turn waits until no other review is open (coroutines only).
local function take_turn()
  if busy and compat.can_yield() then
    local co = coroutine.running()
    queue[#queue + 1] = co
    coroutine.yield()
  end
  busy = true
end

local function end_turn()
  busy = false
  local nxt = table.remove(queue, 1)
  if nxt then
    busy = true
    vim.schedule(function()
      local ok, err = coroutine.resume(nxt)
      if not ok then
        notify_error('review: ' .. tostring(err))
      end
    end)
  end
end

--- change builds what a review function receives: the first file's uri,
--- the unified diff of every file, the first file's new text, the list
--- of all files for multi-file edits, and the hunks (catbuddy.hunks: each
--- {path, kind, label, line, old, new}) the user may accept one by one.
function M.change(params, preview, encoding)
  local first = preview.files[1] or {}
  return {
    hunks = hunks.list(params.edit, preview, encoding),
    uri = first.uri,
    diff = preview.diff,
    new_text = first.new_text,
    old_text = first.old_text,
    label = params.label,
    files = preview.files,
    edit = params.edit,
  }
end

--- decide returns the user's answer to change, using review (true for
--- the built-in diff view, or a function(change, done)): true or false
--- for the whole change, or a list of booleans, one per change.hunks.
function M.decide(review, change)
  if type(review) == 'function' then
    return wait_for(function(done)
      review(change, done)
    end)
  end
  return require('catbuddy.review_ui').ask(change, wait_for)
end

--- needs_confirmation reports whether an applyEdit asks for a review: one
--- of its change annotations has needsConfirmation.
function M.needs_confirmation(params)
  local anns = params and params.edit and params.edit.changeAnnotations
  for _, a in pairs(type(anns) == 'table' and anns or {}) do
    if type(a) == 'table' and a.needsConfirmation then
      return true
    end
  end
  return false
end

--- handle answers one workspace/applyEdit request for a client.
function M.handle(params, encoding, cfg)
  local edit = params and params.edit
  if type(edit) ~= 'table' then
    return { applied = false, failureReason = 'workspace/applyEdit without an edit' }
  end
  -- An edit already stale (the user typed before it arrived) is refused
  -- before it is shown: cb-ls sends it again merged over the typing.
  local stale = apply.stale(edit)
  if #stale > 0 then
    return apply.refuse_stale(stale)
  end
  -- A keep the user asked for (catbuddy.keep) arrives without
  -- needsConfirmation: they already chose, so it lands as it is.
  if cfg.review == false or (require('catbuddy.pending').keeping > 0 and not M.needs_confirmation(params)) then
    return apply.apply(edit, encoding, cfg.save_after_apply)
  end
  local preview, err = changes.preview(edit, encoding)
  if not preview then
    return { applied = false, failureReason = 'cannot show the edit: ' .. tostring(err) }
  end
  if #preview.files == 0 then
    return { applied = true }
  end
  take_turn()
  local change = M.change(params, preview, encoding)
  local ok, answer = pcall(M.decide, cfg.review, change)
  end_turn()
  if not ok then
    notify_error('review failed: ' .. tostring(answer))
    return { applied = false, failureReason = 'review failed: ' .. tostring(answer) }
  end
  local accepted = hunks.normalize(answer, math.max(1, #change.hunks))
  local some, all = false, true
  for _, a in ipairs(accepted) do
    some = some or a
    all = all and a
  end
  if not some then
    return { applied = false, failureReason = M.REJECTED }
  end
  if not all and #change.hunks > 0 then
    edit = hunks.filter(edit, change.hunks, accepted)
  end
  -- Typed during the review: apply refuses it as stale, and cb-ls asks
  -- again with the edit merged over the typing.
  return apply.apply(edit, encoding, cfg.save_after_apply)
end

--- handler returns the workspace/applyEdit handler for one client's
--- config; get_cfg returns the current plugin config.
function M.handler(get_cfg)
  return function(_, params, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local encoding = client and client.offset_encoding or 'utf-16'
    return M.handle(params, encoding, get_cfg())
  end
end

return M

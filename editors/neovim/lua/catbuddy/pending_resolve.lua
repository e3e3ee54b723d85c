-- catbuddy.pending_resolve: the ways out of a pending hunk in conflict. A
-- hunk is in conflict when the user's text changed the lines it touches
-- since the run made it (the server says so in the hunk's `conflict`, and
-- the plugin draws its `!` sign); a plain keep then leaves it pending. The
-- four resolutions are catbuddy.keep's `conflicts` field: "both" (the
-- user's lines, then the run's), "theirs" (the user's text stays, the hunk
-- leaves the set), "run" (the run's lines replace the region) and
-- "markers" (git's conflict markers written into the buffer). The server
-- merges; this module finds the conflicted hunk under the cursor, sends
-- the keep and tells the user what the server did. The
-- catbuddy/pendingChanges that follows redraws the buffer.
local M = {}

local levels = vim.log.levels

--- choices are catbuddy.keep's `conflicts` values, in the order offered.
M.choices = { 'both', 'theirs', 'run', 'markers' }

local done_text = {
  both = "kept both: your lines, then the run's",
  theirs = "kept your text; the run's change left the pending set",
  run = "took the run's lines in place of yours",
  markers = 'wrote conflict markers into the buffer: edit them into what you want, then save',
}

--- valid reports whether choice is one of M.choices.
function M.valid(choice)
  return done_text[choice] ~= nil
end

--- conflict_at returns the conflicted pending hunk of bufnr at 0-based
--- row (when two runs have hunks there, the one in conflict), and the
--- hunk there that is not in conflict, if any.
function M.conflict_at(bufnr, row)
  local pending = require('catbuddy.pending')
  local plain
  for _, h in ipairs(pending.hunks(vim.uri_from_bufnr(bufnr))) do
    if (row >= h.first and row < h.last) or (h.first == h.last and (row == h.first or row == h.first - 1)) then
      if h.conflict then
        return h, nil
      end
      plain = plain or h
    end
  end
  return nil, plain
end

--- message words catbuddy.keep's answer to resolving hunk id as choice,
--- from what the server answered, not from what was asked: it returns
--- the text and its level.
function M.message(id, choice, err, result)
  if err then
    return 'catbuddy: catbuddy.keep (conflicts = ' .. choice .. '): ' .. tostring(err.message or err), levels.ERROR
  end
  result = type(result) == 'table' and result or {}
  for _, r in ipairs(result.resolved or {}) do
    if r.hunk == id then
      local text = done_text[r.as] or ('resolved as "' .. tostring(r.as) .. '"')
      if r.as ~= choice then
        return 'catbuddy: ' .. text .. ' (asked: ' .. choice .. ')', levels.WARN
      end
      return 'catbuddy: ' .. text, levels.INFO
    end
  end
  if vim.tbl_contains(result.kept or {}, id) then
    return "catbuddy: kept the run's change: it was no longer in conflict", levels.INFO
  end
  for _, l in ipairs(result.left or {}) do
    if l.hunk == id then
      return 'catbuddy: nothing resolved, the change is still pending: ' .. tostring(l.reason), levels.WARN
    end
  end
  return 'catbuddy: nothing resolved: the answer does not name the change (' .. vim.inspect(result) .. ')', levels.ERROR
end

--- send sends catbuddy.keep with arg to client_id's server and calls
--- on_result(err, result). While it is in flight the workspace/applyEdit
--- it causes is applied without the review window (pending.keeping).
function M.send(client_id, arg, on_result)
  local pending = require('catbuddy.pending')
  local c = vim.lsp.get_client_by_id(client_id)
  if not c then
    on_result({ message = 'the server of this change is gone' }, nil)
    return
  end
  pending.keeping = pending.keeping + 1
  require('catbuddy.compat').request(c, 'workspace/executeCommand', { command = 'catbuddy.keep', arguments = { arg } }, function(err, result)
    pending.keeping = math.max(0, pending.keeping - 1)
    on_result(err, result)
  end)
end

--- resolve resolves the conflicted pending hunk under the cursor of bufnr
--- (default: the current buffer) as choice, then calls on_done(err,
--- result). It sends nothing, says why and returns false when choice is
--- not one of M.choices or no conflicted hunk is there: "theirs" of a hunk
--- that is not in conflict would keep the run's change.
function M.resolve(choice, bufnr, on_done)
  if not M.valid(choice) then
    vim.notify('catbuddy: resolve: expected one of ' .. table.concat(M.choices, ', ') .. ', got ' .. tostring(choice), levels.ERROR)
    return false
  end
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local h, plain = M.conflict_at(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not h then
    vim.notify(plain and 'catbuddy: the pending change under the cursor is not in conflict: keep or undo it' or 'catbuddy: no pending change under the cursor', levels.WARN)
    return false
  end
  M.send(h.client_id, { runId = h.run_id, hunks = { h.id }, conflicts = choice }, function(err, result)
    local msg, level = M.message(h.id, choice, err, result)
    vim.notify(msg, level)
    if on_done then
      on_done(err, result)
    end
  end)
  return true
end

--- complete completes :CatbuddyPending's arguments: "resolve", then a choice.
function M.complete(lead, line)
  local args = vim.split(line:gsub('^%s*%S+%s*', ''), '%s+')
  local words = #args <= 1 and { 'resolve' } or (#args == 2 and args[1] == 'resolve') and M.choices or {}
  return vim.tbl_filter(function(w)
    return w:sub(1, #lead) == lead
  end, words)
end

return M

-- catbuddy.apply: applying an accepted workspace edit, and saving what it
-- touched so tools that read the disk (grep, exec) see it.
local changes = require('catbuddy.changes')
local compat = require('catbuddy.compat')

local M = {}

--- strip_annotations returns a copy of edit without change annotations.
-- The plugin is the review: once the user accepted, Neovim 0.12 must not
-- ask again (it confirm()s every needsConfirmation edit itself).
function M.strip_annotations(edit)
  local e = vim.deepcopy(edit)
  e.changeAnnotations = nil
  local function strip(edits)
    for _, te in ipairs(edits or {}) do
      te.annotationId = nil
    end
  end
  for _, op in ipairs(e.documentChanges ~= vim.NIL and e.documentChanges or {}) do
    op.annotationId = nil
    strip(op.edits)
  end
  for _, edits in pairs(e.changes or {}) do
    strip(edits)
  end
  return e
end

--- stale returns a reason when a TextDocumentEdit is pinned to an older
--- version than the buffer has now. Neovim itself would skip such an edit
--- and still answer applied = true; saying so lets the agent re-read.
function M.stale(edit)
  for _, op in ipairs(changes.operations(edit)) do
    local v = op.textDocument and op.textDocument.version
    if not op.kind and type(v) == 'number' then
      local path = vim.uri_to_fname(op.textDocument.uri)
      local b = changes.find_buf(path)
      local cur = b and compat.buf_version(b)
      if cur and cur > v then
        return string.format(
          '%s changed in the editor after the edit was made (buffer version %d, edit version %d)',
          vim.fn.fnamemodify(path, ':.'),
          cur,
          v
        )
      end
    end
  end
  return nil
end

--- paths returns the files an edit writes (not the ones it deletes).
function M.paths(edit)
  local out, seen = {}, {}
  local function add(uri)
    if uri and not seen[uri] then
      seen[uri] = true
      out[#out + 1] = vim.uri_to_fname(uri)
    end
  end
  for _, op in ipairs(changes.operations(edit)) do
    if op.kind == 'create' then
      add(op.uri)
    elseif op.kind == 'rename' then
      add(op.newUri)
    elseif not op.kind then
      add(op.textDocument.uri)
    end
  end
  return out
end

--- save writes each modified buffer among paths; it returns the errors.
function M.save(paths)
  local errs = {}
  for _, path in ipairs(paths) do
    local b = changes.find_buf(path)
    if b and vim.api.nvim_buf_get_option(b, 'modified') then
      vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
      local ok, err = pcall(vim.api.nvim_buf_call, b, function()
        vim.cmd('silent keepalt write')
      end)
      if not ok then
        errs[#errs + 1] = string.format('save %s: %s', vim.fn.fnamemodify(path, ':.'), tostring(err))
      end
    end
  end
  return errs
end

--- apply applies edit for a client with the given offset encoding and,
--- when save is set, writes the buffers it changed. It returns the
--- ApplyWorkspaceEditResult to send back.
function M.apply(edit, encoding, save)
  local reason = M.stale(edit)
  if reason then
    return { applied = false, failureReason = reason }
  end
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, M.strip_annotations(edit), encoding or 'utf-16')
  if not ok then
    return { applied = false, failureReason = 'applying the edit failed: ' .. tostring(err) }
  end
  if save then
    local errs = M.save(M.paths(edit))
    if #errs > 0 then
      -- The edit is in the buffers; only the write failed, so the answer
      -- stays applied = true and the user is told.
      vim.notify('catbuddy: ' .. table.concat(errs, '; '), vim.log.levels.WARN)
    end
  end
  return { applied = true }
end

return M

-- catbuddy.apply: applying an accepted workspace edit, and saving what it
-- touched so tools that read the disk (grep, exec) see it.
local changes = require('catbuddy.changes')
local compat = require('catbuddy.compat')

local M = {}

--- strip_annotations: see changes.strip_annotations.
M.strip_annotations = changes.strip_annotations

--- stale returns the TextDocumentEdits pinned to an older version than
--- their buffer has now, as {index, uri, path, bufnr, version, current};
--- index is the 0-based position in documentChanges (failedChange).
function M.stale(edit)
  local out = {}
  if not edit.documentChanges or edit.documentChanges == vim.NIL then
    return out -- a changes map pins nothing
  end
  for i, op in ipairs(edit.documentChanges) do
    local v = op.textDocument and op.textDocument.version
    if not op.kind and type(v) == 'number' then
      local path = vim.uri_to_fname(op.textDocument.uri)
      local b = changes.find_buf(path)
      local cur = b and compat.buf_version(b)
      if cur and cur ~= v then
        out[#out + 1] = { index = i - 1, uri = op.textDocument.uri, path = path, bufnr = b, version = v, current = cur }
      end
    end
  end
  return out
end

--- refuse_stale is the answer to an edit that stale(edit) found stale:
--- not applied, with failedChange naming the first such document. cb-ls
--- then merges its edit over the user's typing and sends it again (the
--- stale-edit policy is the server's; the plugin merges nothing).
function M.refuse_stale(stale)
  local s = stale[1]
  return {
    applied = false,
    failedChange = s.index,
    failureReason = string.format(
      '%s changed in the editor after the edit was made (buffer version %d, edit version %d)',
      vim.fn.fnamemodify(s.path, ':.'),
      s.current,
      s.version
    ),
  }
end

-- make_parents creates the directories of new files: Neovim 0.7's
-- CreateFile opens the file without them and fails in a new directory.
local function make_parents(edit)
  for _, op in ipairs(changes.operations(edit)) do
    if op.kind == 'create' or op.kind == 'rename' then
      local fname = vim.uri_to_fname(op.uri or op.newUri)
      vim.fn.mkdir(vim.fn.fnamemodify(fname, ':h'), 'p')
    end
  end
end

-- trim_created removes, in each buffer the edit created, the empty last
-- line that inserting text ending in a newline leaves (see
-- changes.trim_created), so the file is saved with the server's content.
local function trim_created(edit)
  for _, op in ipairs(changes.operations(edit)) do
    if op.kind == 'create' then
      local b = changes.find_buf(vim.uri_to_fname(op.uri))
      if b then
        local lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
        if #lines > 1 and lines[#lines] == '' then
          vim.api.nvim_buf_set_lines(b, -2, -1, false, {})
        end
      end
    end
  end
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
--- when save is set, writes the buffers it changed. An edit pinned to a
--- version its buffer no longer has is not applied (refuse_stale; Neovim
--- itself would skip those files and still answer applied = true). It
--- returns the ApplyWorkspaceEditResult to send back.
function M.apply(edit, encoding, save)
  encoding = encoding or 'utf-16'
  local stale = M.stale(edit)
  if #stale > 0 then
    return M.refuse_stale(stale)
  end
  make_parents(edit)
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, M.strip_annotations(edit), encoding)
  if ok then
    trim_created(edit)
  end
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

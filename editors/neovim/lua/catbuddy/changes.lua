-- catbuddy.changes: what a workspace/applyEdit would do, file by file,
-- before anything is applied: the old and new text and a unified diff.
-- Text edits are applied to a scratch copy with vim.lsp.util itself, so the
-- preview is exactly what accepting produces.
local compat = require('catbuddy.compat')

local M = {}

--- find_buf returns the loaded buffer whose name is path, or nil.
-- (vim.fn.bufnr(path) would pattern-match and may pick another buffer.)
function M.find_buf(path)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == path then
      return b
    end
  end
  return nil
end

local function read_lines(path)
  local b = M.find_buf(path)
  if b then
    return vim.api.nvim_buf_get_lines(b, 0, -1, false), true, b
  end
  if vim.fn.filereadable(path) == 1 then
    return vim.fn.readfile(path), true
  end
  return {}, false
end

--- to_text joins buffer lines into file text (a newline after each line).
function M.to_text(lines)
  if #lines == 0 or (#lines == 1 and lines[1] == '') then
    return ''
  end
  return table.concat(lines, '\n') .. '\n'
end

-- apply_to_lines applies LSP text edits to a copy of lines in a scratch
-- buffer and returns the resulting lines.
local function apply_to_lines(lines, edits, encoding)
  local buf = vim.api.nvim_create_buf(false, true)
  local ok, err = pcall(function()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.lsp.util.apply_text_edits(edits, buf, encoding)
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end)
  pcall(vim.api.nvim_buf_delete, buf, { force = true })
  if not ok then
    return nil, err
  end
  return lines
end

--- operations returns the edit's changes as one ordered list: the
--- documentChanges as they are, or the `changes` map as TextDocumentEdits
--- without versions (sorted by URI for a stable order).
function M.operations(edit)
  if edit.documentChanges and edit.documentChanges ~= vim.NIL then
    return edit.documentChanges
  end
  local ops, uris = {}, {}
  for uri in pairs(edit.changes or {}) do
    uris[#uris + 1] = uri
  end
  table.sort(uris)
  for _, uri in ipairs(uris) do
    ops[#ops + 1] = { textDocument = { uri = uri }, edits = edit.changes[uri] }
  end
  return ops
end

--- trim_created drops the empty last line that inserting "text\n" into a
--- new (empty) buffer leaves: Neovim writes every line with a newline
--- ('eol'), so that line would become a second final newline on disk and
--- the file would not be what the server sent.
function M.trim_created(lines)
  if #lines > 1 and lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

local function rel(path)
  return vim.fn.fnamemodify(path, ':.')
end

--- preview returns {files = {...}, diff = "..."} for a WorkspaceEdit, or
--- nil and an error. Each file is {uri, path, kind, old_text, new_text,
--- diff, exists, version?, bufnr?}; kind is "edit",
--- "create", "rename" or "delete".
function M.preview(edit, encoding)
  encoding = encoding or 'utf-16'
  edit = M.strip_annotations(edit)
  local files, by_uri = {}, {}
  local function file(uri)
    local f = by_uri[uri]
    if not f then
      local path = vim.uri_to_fname(uri)
      local lines, exists, bufnr = read_lines(path)
      f = { uri = uri, path = path, kind = 'edit', old = lines, lines = vim.deepcopy(lines), exists = exists }
      f.bufnr = bufnr
      by_uri[uri] = f
      files[#files + 1] = f
    end
    return f
  end
  for i, op in ipairs(M.operations(edit)) do
    if op.kind == 'create' then
      local f = file(op.uri)
      if not f.exists or (op.options and op.options.overwrite) then
        f.kind = f.exists and 'edit' or 'create'
        f.lines = {}
      end
    elseif op.kind == 'rename' then
      local from = file(op.oldUri)
      local to = file(op.newUri)
      to.kind, to.renamed_from, to.lines = 'rename', from.path, from.lines
      to.old = from.old
      from.kind, from.lines = 'delete', {}
      from.renamed_to = to.path
    elseif op.kind == 'delete' then
      local f = file(op.uri)
      f.kind, f.lines = 'delete', {}
    elseif op.kind then
      return nil, string.format('documentChanges[%d]: unsupported change kind %q', i, tostring(op.kind))
    else
      local uri = op.textDocument and op.textDocument.uri
      if type(uri) ~= 'string' then
        return nil, string.format('documentChanges[%d]: text document edit without a uri', i)
      end
      local f = file(uri)
      local lines, err = apply_to_lines(f.lines, op.edits or {}, encoding)
      if not lines then
        return nil, string.format('%s: %s', rel(f.path), tostring(err))
      end
      f.lines = lines
      if op.textDocument.version ~= nil and op.textDocument.version ~= vim.NIL then
        f.version = op.textDocument.version
      end
    end
  end
  local all = {}
  for _, f in ipairs(files) do
    if f.kind == 'create' then
      M.trim_created(f.lines)
    end
    if not (f.kind == 'delete' and f.renamed_to) then
      f.old_text, f.new_text = M.to_text(f.old), M.to_text(f.lines)
      local a = f.kind == 'create' and '/dev/null' or ('a/' .. rel(f.renamed_from or f.path))
      local b = f.kind == 'delete' and '/dev/null' or ('b/' .. rel(f.path))
      local hunks = compat.diff(f.old_text, f.new_text, { ctxlen = 3 }) or ''
      f.diff = string.format('--- %s\n+++ %s\n%s', a, b, hunks)
      all[#all + 1] = f.diff
    end
    f.old, f.lines = nil, nil
  end
  return { files = files, diff = table.concat(all, '') }
end

-- copy copies tables deeply and keeps anything else (vim.NIL, which
-- 0.7's vim.deepcopy refuses) as it is.
local function copy(v)
  if type(v) ~= 'table' then
    return v
  end
  local out = {}
  for k, x in pairs(v) do
    out[k] = copy(x)
  end
  return setmetatable(out, getmetatable(v))
end
M.copy = copy

--- strip_annotations returns a copy of edit without change annotations,
--- ready for vim.lsp.util. The plugin is the review: once the user
--- accepted, Neovim 0.12 must not ask again (it confirm()s every
--- needsConfirmation edit), and its apply_text_edits refuses annotated
--- edits without their annotations. An unpinned textDocument.version
--- (absent or null) becomes 0 in this copy: Neovim's own staleness check
--- skips versions <= 0, and 0.7-0.10 fail on null while 0.12 fails on
--- an absent one. (The plugin refuses stale edits itself, in apply.lua.)
function M.strip_annotations(edit)
  local e = copy(edit)
  e.changeAnnotations = nil
  local function strip(edits)
    for _, te in ipairs(edits or {}) do
      te.annotationId = nil
    end
  end
  for _, op in ipairs(e.documentChanges ~= vim.NIL and e.documentChanges or {}) do
    op.annotationId = nil
    if op.textDocument and type(op.textDocument.version) ~= 'number' then
      op.textDocument.version = 0
    end
    strip(op.edits)
  end
  for _, edits in pairs(e.changes ~= vim.NIL and e.changes or {}) do
    strip(edits)
  end
  return e
end

--- count returns the added and removed line counts of a unified diff.
function M.count(diff)
  local added, removed = 0, 0
  for line in diff:gmatch('[^\n]+') do
    if line:sub(1, 1) == '+' and line:sub(1, 3) ~= '+++' then
      added = added + 1
    elseif line:sub(1, 1) == '-' and line:sub(1, 3) ~= '---' then
      removed = removed + 1
    end
  end
  return added, removed
end

return M

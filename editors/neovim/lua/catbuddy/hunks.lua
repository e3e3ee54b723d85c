-- catbuddy.hunks: a workspace edit split into the hunks the user accepts
-- or rejects one by one. cb-ls sends each hunk as its own (annotated)
-- text edit, labelled "calc.go: lines 40–44"; a file created, deleted or
-- renamed is one hunk. Accepting some hunks means applying the edit
-- without the others and answering applied = true: the server compares
-- the buffer with what it sent and tells the agent which hunks landed.
local changes = require('catbuddy.changes')

local M = {}

local function split(text)
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

-- apply_slice applies one LSP text edit to a copy of lines, through a
-- scratch buffer and vim.lsp.util (so encodings are handled as the
-- apply itself will).
local function apply_slice(lines, te, encoding)
  local buf = vim.api.nvim_create_buf(false, true)
  local ok, out = pcall(function()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.lsp.util.apply_text_edits({ te }, buf, encoding)
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  end)
  pcall(vim.api.nvim_buf_delete, buf, { force = true })
  return ok and out or lines
end

-- trim drops the lines old and new share at both ends, and returns how
-- many leading lines were dropped.
local function trim(old, new)
  local lead = 0
  while lead < #old and lead < #new and old[lead + 1] == new[lead + 1] do
    lead = lead + 1
  end
  local tail = 0
  while tail < #old - lead and tail < #new - lead and old[#old - tail] == new[#new - tail] do
    tail = tail + 1
  end
  local o, n = {}, {}
  for i = lead + 1, #old - tail do
    o[#o + 1] = old[i]
  end
  for i = lead + 1, #new - tail do
    n[#n + 1] = new[i]
  end
  return o, n, lead
end

local function rel(path)
  return vim.fn.fnamemodify(path, ':.')
end

--- list returns the hunks of edit, given its preview (changes.preview):
--- each {op, index (nil for a file operation), path, kind, label, line,
--- old = {lines}, new = {lines}}; op and index locate the hunk in
--- changes.operations(edit).
function M.list(edit, preview, encoding)
  encoding = encoding or 'utf-16'
  local annotations = edit.changeAnnotations ~= vim.NIL and edit.changeAnnotations or {}
  local files = {}
  for _, f in ipairs(preview.files or {}) do
    files[f.uri] = f
  end
  local out, created = {}, {}
  for oi, op in ipairs(changes.operations(edit)) do
    local label = op.annotationId and annotations[op.annotationId] and annotations[op.annotationId].label
    if op.kind then
      local uri = op.uri or op.newUri
      local f = files[uri] or {}
      local path = vim.uri_to_fname(uri)
      if op.kind == 'create' then
        created[uri] = #out + 1
      end
      out[#out + 1] = {
        op = oi,
        path = path,
        kind = op.kind,
        label = label or (op.kind:gsub('^%l', string.upper) .. ' ' .. rel(path)),
        line = 1,
        old = op.kind == 'create' and {} or split(f.old_text),
        new = op.kind == 'delete' and {} or split(f.new_text),
      }
    elseif created[op.textDocument.uri] then
      -- The text of a created file belongs to its "Create" hunk.
      local h = out[created[op.textDocument.uri]]
      h.text_ops = h.text_ops or {}
      h.text_ops[#h.text_ops + 1] = oi
    else
      local f = files[op.textDocument.uri] or {}
      local base = split(f.old_text)
      local path = vim.uri_to_fname(op.textDocument.uri)
      for ei, te in ipairs(op.edits or {}) do
        local s, e = te.range.start.line, te.range['end'].line
        local slice = {}
        for l = s + 1, math.min(e + 1, #base) do
          slice[#slice + 1] = base[l]
        end
        local moved = vim.deepcopy(te)
        moved.range = {
          start = { line = 0, character = te.range.start.character },
          ['end'] = { line = e - s, character = te.range['end'].character },
        }
        moved.annotationId = nil
        local old, new, lead = trim(slice, apply_slice(slice, moved, encoding))
        local l = te.annotationId and annotations[te.annotationId] and annotations[te.annotationId].label
        out[#out + 1] = {
          op = oi,
          index = ei,
          path = path,
          kind = 'edit',
          label = l or string.format('%s: line %d', rel(path), s + 1),
          line = s + 1 + lead,
          old = old,
          new = new,
        }
      end
    end
  end
  return out
end

--- normalize turns a review answer into one boolean per hunk: true or
--- false for all, or a list (answer[i] for hunk i; missing means no).
function M.normalize(answer, n)
  local out = {}
  for i = 1, n do
    if type(answer) == 'table' then
      out[i] = answer[i] == true
    else
      out[i] = answer == true
    end
  end
  return out
end

--- filter returns a copy of edit holding only the accepted hunks.
function M.filter(edit, hunks, accepted)
  local drop_op, drop_edit = {}, {}
  for i, h in ipairs(hunks) do
    if not accepted[i] then
      if h.index then
        drop_edit[h.op] = drop_edit[h.op] or {}
        drop_edit[h.op][h.index] = true
      else
        drop_op[h.op] = true
        for _, t in ipairs(h.text_ops or {}) do
          drop_op[t] = true
        end
      end
    end
  end
  local e = changes.copy(edit)
  local ops = changes.operations(e)
  local kept = {}
  for oi, op in ipairs(ops) do
    if not drop_op[oi] then
      if drop_edit[oi] then
        local edits = {}
        for ei, te in ipairs(op.edits or {}) do
          if not drop_edit[oi][ei] then
            edits[#edits + 1] = te
          end
        end
        op.edits = edits
      end
      if op.kind or #(op.edits or {}) > 0 then
        kept[#kept + 1] = op
      end
    end
  end
  e.documentChanges, e.changes = kept, nil
  return e
end

return M

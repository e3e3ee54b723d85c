-- Buffers of files a command changed on disk (catbuddy/runEvent of kind
-- files_changed) are brought up to date: a buffer without unsaved changes
-- is reloaded with :checktime, so the server's copy of it follows too
-- (Neovim sends the reloaded text); a buffer with unsaved changes keeps
-- the user's text, and a notification says what happened on disk and how
-- to load it. Reloading such a buffer, or asking (W12) from a callback,
-- would take the user's typing or block the editor.
local M = {}

--- loaded_buffer returns the loaded file buffer for fname, or nil.
local function loaded_buffer(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' then
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= '' and (name == fname or vim.fn.resolve(name) == fname) then
        return b
      end
    end
  end
end

--- reload runs :checktime for b with 'autoread' on for it alone, so the
--- reload is silent whatever the user's global setting.
local function reload(b)
  vim.api.nvim_buf_call(b, function()
    vim.cmd('setlocal autoread')
    vim.cmd('silent! checktime ' .. b)
    vim.cmd('set autoread<')
  end)
end

--- files_changed handles a files_changed runEvent {command, files:
--- [{uri, path, kind}]}. It returns the buffers it reloaded.
function M.files_changed(params)
  local reloaded, kept, gone = {}, {}, {}
  for _, f in ipairs(type(params) == 'table' and params.files or {}) do
    local ok, fname = pcall(vim.uri_to_fname, f.uri or '')
    local b = ok and loaded_buffer(fname)
    if b then
      local name = f.path or vim.fn.fnamemodify(fname, ':.')
      if f.kind == 'deleted' then
        gone[#gone + 1] = name
      elseif vim.bo[b].modified then
        kept[#kept + 1] = name
      else
        reload(b)
        reloaded[#reloaded + 1] = b
      end
    end
  end
  local cmd = type(params) == 'table' and params.command or 'a command'
  if #kept > 0 then
    vim.notify(string.format('catbuddy: `%s` changed %s on disk; your unsaved changes are kept in the buffer (:e! loads the file from disk).',
      cmd, table.concat(kept, ', ')), vim.log.levels.WARN)
  end
  if #gone > 0 then
    vim.notify(string.format('catbuddy: `%s` deleted %s; the buffer still holds the text (:w writes it back, :bd closes it).',
      cmd, table.concat(gone, ', ')), vim.log.levels.WARN)
  end
  return reloaded
end

return M

-- catbuddy.next_edit: the key that keeps a next-edit suggestion
-- (docs/completions.md#next-edit-suggestions). cb-ls sends the one edit it
-- expects next as a pending pseudo-run whose runId starts with "nes-";
-- catbuddy.pending draws it like any run's hunk. This module maps
-- next_edit.keep (default <Tab>) in normal and insert mode: while such a
-- hunk is on or next to the cursor's line it sends catbuddy.keep for it,
-- otherwise the key does what it did before (the mapping the buffer or
-- the user had for it when cb-ls attached, else Neovim's own), as it does
-- while ghost text is shown (catbuddy.inline's suggestion comes first).
local M = {}

M.prefix = 'nes-'

local DESC = 'Agent: keep the next-edit suggestion at the cursor'

--- near returns the next-edit hunk of bufnr (as catbuddy.pending.hunks
--- gives them) that 0-based row is on or next to: one of the lines it
--- replaces, or the line just above or below them; an insertion sits at
--- its line. A run's hunk never is one.
function M.near(bufnr, row)
  for _, h in ipairs(require('catbuddy.pending').hunks(vim.uri_from_bufnr(bufnr))) do
    if h.run_id:sub(1, #M.prefix) == M.prefix and not h.conflict and not h.whole then
      local last = h.last > h.first and h.last - 1 or h.first
      if row >= h.first - 1 and row <= last + 1 then
        return h
      end
    end
  end
  return nil
end

--- keep sends catbuddy.keep for hunk h (M.near's). The suggestion may
--- have been withdrawn by a keystroke whose empty notification is still
--- on its way: that error is not worth a message.
function M.keep(h)
  local c = vim.lsp.get_client_by_id(h.client_id)
  if not c then
    return false
  end
  local pending = require('catbuddy.pending')
  pending.keeping = pending.keeping + 1
  require('catbuddy.compat').request(c, 'workspace/executeCommand', { command = 'catbuddy.keep', arguments = { { runId = h.run_id } } }, function(err, result)
    pending.keeping = math.max(0, pending.keeping - 1)
    local left = type(result) == 'table' and result.left or {}
    if not err and #left > 0 then
      vim.notify('catbuddy: next edit not applied: ' .. tostring(left[1].reason), vim.log.levels.INFO)
    end
  end)
  return true
end

-- ghost reports whether catbuddy.inline shows ghost text in bufnr (its
-- own, before 0.12): its accept key, if it is this one, comes first.
local function ghost(bufnr)
  local st = require('catbuddy.inline').state[bufnr]
  return st ~= nil and st.shown ~= nil
end

-- fallback returns what lhs does without the plugin's mapping, from prev
-- (maparg()'s dict of the mapping it replaced, or {}). The mapping is an
-- expression mapping with remap: a result that starts with lhs is not
-- mapped again (:help recursive_mapping), so lhs itself is Neovim's own
-- key, and a previous rhs is mapped again (a noremap one too).
local function fallback(lhs, prev)
  -- On 0.7 maparg() gives a Lua mapping's callback as a number, which
  -- cannot be called: the key is then Neovim's own.
  if type(prev.callback) == 'function' then
    if prev.expr == 1 then
      return prev.callback()
    end
    vim.schedule(prev.callback)
    return ''
  end
  if type(prev.rhs) == 'string' and prev.rhs ~= '' then
    if prev.expr == 1 then
      return vim.api.nvim_eval(prev.rhs)
    end
    return prev.rhs
  end
  return lhs
end

-- mapped[bufnr][mode] is the lhs mapped there, so that attaching again (a
-- restarted server) does not take its own mapping for the user's.
local mapped = {}

--- attach maps cfg.next_edit.keep in bufnr (false or '': nothing).
function M.attach(bufnr, cfg)
  local ne = cfg and cfg.next_edit
  local lhs = type(ne) == 'table' and ne.keep or nil
  if type(lhs) ~= 'string' or lhs == '' then
    return
  end
  if not mapped[bufnr] then
    mapped[bufnr] = {}
    vim.api.nvim_buf_attach(bufnr, false, {
      on_detach = function()
        mapped[bufnr] = nil
      end,
    })
  end
  for _, mode in ipairs({ 'n', 'i' }) do
    if mapped[bufnr][mode] ~= lhs then
      local prev = vim.fn.maparg(lhs, mode, false, true)
      if type(prev) ~= 'table' or prev.desc == DESC then
        prev = {}
      end
      mapped[bufnr][mode] = lhs
      vim.keymap.set(mode, lhs, function()
        local h = not ghost(bufnr) and M.near(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
        if h then
          -- An expression mapping may not change the buffer: the keep's
          -- applyEdit arrives later anyway.
          vim.schedule(function()
            M.keep(h)
          end)
          return ''
        end
        return fallback(lhs, prev)
      end, { buffer = bufnr, expr = true, remap = true, desc = DESC })
    end
  end
end

return M

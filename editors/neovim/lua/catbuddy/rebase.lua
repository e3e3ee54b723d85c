-- catbuddy.rebase: keeping both the agent's edit and what the user typed
-- while it was being reviewed. The edit was made against the buffer as it
-- was (base); the buffer has moved on (mine); the agent's result is
-- theirs. When the two sets of line changes do not touch, the agent's
-- hunks are applied to the buffer as it is now, like a clean git merge.
local compat = require('catbuddy.compat')

local M = {}

local function hunks(a, b)
  return compat.diff(a, b, { result_type = 'indices', algorithm = 'histogram' }) or {}
end

-- span returns the gaps between base lines a hunk covers: a change of
-- lines s..s+c-1 spans gaps s-1..s+c-1, an insertion after line s spans
-- gap s. Hunks whose spans meet conflict (adjacent changes too, as in git).
local function span(h)
  local s, c = h[1], h[2]
  if c == 0 then
    return s, s
  end
  return s - 1, s + c - 1
end

local function split(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

--- plan returns the changes to make to mine ({first0, last0, lines}
--- triples for nvim_buf_set_lines, bottom to top) so it also holds the
--- base -> theirs changes, or nil and a reason when they conflict.
function M.plan(base, mine, theirs)
  local ours = hunks(base, mine)
  local their = hunks(base, theirs)
  local their_lines = split(theirs)
  for _, t in ipairs(their) do
    local t1, t2 = span(t)
    for _, o in ipairs(ours) do
      local o1, o2 = span(o)
      if t1 <= o2 and o1 <= t2 then
        return nil, string.format('the edit overlaps changes made in the editor meanwhile (around line %d)', math.max(t[1], 1))
      end
    end
  end
  -- offset is how far base line n has moved in mine.
  local function offset(n)
    local d = 0
    for _, o in ipairs(ours) do
      local o1 = span(o)
      if o1 < n then
        d = d + o[4] - o[2]
      end
    end
    return d
  end
  local steps = {}
  for i = #their, 1, -1 do
    local s, c, sb, cb = unpack(their[i])
    local repl = {}
    for k = sb, sb + cb - 1 do
      repl[#repl + 1] = their_lines[k]
    end
    local first = (c == 0) and s or (s - 1)
    local moved = first + offset(first + 1)
    steps[#steps + 1] = { moved, moved + c, repl }
  end
  return steps
end

--- apply applies plan's steps to bufnr.
function M.apply(bufnr, steps)
  for _, st in ipairs(steps) do
    vim.api.nvim_buf_set_lines(bufnr, st[1], st[2], false, st[3])
  end
end

return M

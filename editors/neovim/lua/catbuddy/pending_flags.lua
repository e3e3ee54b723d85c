-- catbuddy.pending_flags: how a pending file's flags are worded before the
-- user keeps it. The server sends them in catbuddy/pendingChanges: a file
-- that runs later without a build command (runsLater: direnv's .envrc, a
-- CI workflow), one keep will not write (keepRefused: under .git/, a
-- FIFO), and a whole-file item (whole: binary, big, a link) whose one
-- hunk's label describes it and which has no lines to draw. The inline
-- marks and the quickfix list both say them through this module.
local M = {}

--- not_kept is the refusal as the user reads it; the server's reason
--- already says "not kept: …" and is not said twice.
function M.not_kept(reason)
  if reason:lower():match('^not kept') then
    return reason
  end
  return 'not kept: ' .. reason
end

--- notes lists file f's notes, most important first.
function M.notes(f)
  local out = {}
  if type(f.keepRefused) == 'string' and f.keepRefused ~= '' then
    out[#out + 1] = M.not_kept(f.keepRefused)
  end
  if type(f.runsLater) == 'string' and f.runsLater ~= '' then
    out[#out + 1] = 'runs later: ' .. f.runsLater
  end
  return out
end

--- suffix is " (not kept: …; runs later: …)", or "" for a file without flags.
function M.suffix(f)
  local n = M.notes(f)
  if #n == 0 then
    return ''
  end
  return ' (' .. table.concat(n, '; ') .. ')'
end

--- whole_label is a whole-file item's label ("big.bin: 2.0 GB, whole file"), or nil.
function M.whole_label(f)
  if not f.whole then
    return nil
  end
  local h = type(f.hunks) == 'table' and f.hunks[1] or nil
  return (h and h.label and h.label ~= '') and h.label or (tostring(f.path) .. ': whole file')
end

return M

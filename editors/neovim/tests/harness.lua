-- A small test harness for headless Neovim (0.7 and 0.10+): test() runs a
-- function and records the outcome, finish() prints "N passed, M failed"
-- and exits non-zero on any failure.
local H = { passed = 0, failed = 0, suite = 'tests' }

local function out(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end
H.out = out

--- test runs fn as one test case; an error fails it.
function H.test(name, fn)
  local ok, e = xpcall(fn, debug.traceback)
  -- Leave no windows or buffers from one test in the next.
  pcall(vim.cmd, 'silent! only!')
  if ok then
    H.passed = H.passed + 1
    out('ok   ' .. name)
  else
    H.failed = H.failed + 1
    out('FAIL ' .. name .. '\n' .. tostring(e))
  end
end

--- eq fails unless want and got are deeply equal.
function H.eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format('%s:\n  want %s\n  got  %s', what or 'value', vim.inspect(want), vim.inspect(got)), 2)
  end
end

--- truthy fails unless v is truthy.
function H.truthy(v, what)
  if not v then
    error((what or 'value') .. ': want truthy, got ' .. vim.inspect(v), 2)
  end
end

--- contains fails unless the string s contains sub.
function H.contains(s, sub, what)
  if type(s) ~= 'string' or not s:find(sub, 1, true) then
    error(string.format('%s: %s does not contain %s', what or 'string', vim.inspect(s), vim.inspect(sub)), 2)
  end
end

--- wait waits for cond up to ms, failing with what when it never holds.
--- The bound only ends a test that is failing, so it is at least
--- min_wait_ms: a shared 2-core machine under load takes many times what
--- a quiet one does, and waiting longer costs a passing test nothing.
local min_wait_ms = 30000
function H.wait(ms, cond, what)
  if not vim.wait(math.max(ms, min_wait_ms), cond, 10) then
    error('timed out waiting for ' .. (what or 'condition'), 2)
  end
end

--- tmpdir returns a fresh directory.
function H.tmpdir()
  local d = vim.fn.tempname()
  vim.fn.mkdir(d, 'p')
  return d
end

--- write writes lines to path and returns path.
function H.write(path, lines)
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile(lines, path)
  return path
end

--- capture_notify records vim.notify calls until the returned restore().
function H.capture_notify()
  local got = {}
  local orig = vim.notify
  vim.notify = function(msg, level)
    got[#got + 1] = { msg = msg, level = level }
  end
  return got, function()
    vim.notify = orig
  end
end

--- finish prints the summary line and exits (non-zero on failure).
function H.finish()
  out(string.format('%s: %d passed, %d failed', H.suite, H.passed, H.failed))
  -- No test at all is a failure, unless $CB_NVIM_TESTS chose no file of this suite.
  if H.failed > 0 or (H.passed == 0 and not H.none_chosen) then
    vim.cmd('cquit! 1')
  else
    vim.cmd('qall!')
  end
end

--- run_dir runs every *_test.lua in dir (sorted) and finishes: a file
--- that fails to load counts as a failed test named after it. With
--- $CB_NVIM_TESTS set, only the files whose name contains it run; a
--- suite none of whose files match then passes with nothing run.
function H.run_dir(dir)
  local files = vim.fn.glob(dir .. '/*_test.lua', false, true)
  table.sort(files)
  local only = vim.env.CB_NVIM_TESTS
  local chosen = 0
  for _, f in ipairs(files) do
    local ok, suite = true, nil
    if only and only ~= '' and not vim.fn.fnamemodify(f, ':t'):find(only, 1, true) then
      suite = function() end
    else
      chosen = chosen + 1
      ok, suite = pcall(dofile, f)
    end
    if not ok then
      H.test(vim.fn.fnamemodify(f, ':t'), function()
        error(suite)
      end)
    else
      suite(H)
    end
  end
  if chosen == 0 and only and only ~= '' then
    out(string.format('%s: no test file matches %q', H.suite, only))
    H.none_chosen = true
  end
  H.finish()
end

return H

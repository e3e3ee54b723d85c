-- End-to-end tests: real cb-ls, real scripted model server, this Neovim.
--   CB_LS=/path/cb-ls SCRIPTMODEL=/path/scriptmodel \
--   nvim --headless --clean -n -u NONE -c 'luafile tests/e2e.lua'
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local root = vim.fn.fnamemodify(here, ':h')
vim.opt.runtimepath:prepend(root)
package.path = here .. '/?.lua;' .. package.path
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'F'

local H = require('harness')
H.suite = 'e2e'
for _, v in ipairs({ 'CB_LS', 'SCRIPTMODEL' }) do
  if not vim.env[v] or vim.fn.executable(vim.env[v]) ~= 1 then
    H.out('e2e: $' .. v .. ' must name an executable')
    vim.cmd('cquit! 2')
  end
end
vim.cmd('runtime plugin/catbuddy.lua')
-- Notifications go to the log on their own lines, marked.
vim.notify = function(msg, level)
  H.out(string.format('  [notify %s] %s', tostring(level), (tostring(msg):gsub('\n', '\n    '))))
end
H.run_dir(here .. '/e2e')

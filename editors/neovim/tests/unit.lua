-- Runs every tests/unit/*_test.lua in this Neovim:
--   nvim --headless --clean -n -u NONE -c 'luafile tests/unit.lua'
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local root = vim.fn.fnamemodify(here, ':h')
vim.opt.runtimepath:prepend(root)
package.path = here .. '/?.lua;' .. package.path
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'F'

local H = require('harness')
H.suite = 'unit'
vim.cmd('runtime plugin/catbuddy.lua')
H.run_dir(here .. '/unit')

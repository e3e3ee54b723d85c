-- A Go project served by a real gopls ($GOPLS, installed by
-- scripts/get-gopls.sh through scripts/test-neovim.sh), started the way a
-- user's config starts it: on each Go buffer of the project.
local compat = require('catbuddy.compat')

local G = {}

G.greet = {
  'package greet',
  '',
  '// Hello greets name.',
  'func Hello(name string) string {',
  '\treturn "hello, " + name',
  '}',
}

G.use = {
  'package greet',
  '',
  '// Twice greets name twice.',
  'func Twice(name string) string {',
  '\treturn Hello(name) + " " + Hello(name)',
  '}',
}

--- project writes the module into a fresh git-rooted directory, makes it
--- the current directory, and starts gopls on its Go buffers.
function G.project(H)
  H.truthy(vim.env.GOPLS and vim.fn.executable(vim.env.GOPLS) == 1, '$GOPLS names gopls (scripts/test-neovim.sh installs it)')
  local dir = vim.fn.resolve(H.tmpdir())
  vim.fn.mkdir(dir .. '/.git', 'p')
  H.write(dir .. '/go.mod', { 'module example.com/greet', '', 'go 1.22' })
  local greet = H.write(dir .. '/greet.go', G.greet)
  local use = H.write(dir .. '/use.go', G.use)
  vim.cmd('cd ' .. vim.fn.fnameescape(dir))
  vim.cmd('filetype on')
  vim.api.nvim_create_autocmd('FileType', {
    group = vim.api.nvim_create_augroup('e2e_gopls', { clear = true }),
    pattern = 'go',
    callback = function(ev)
      compat.start({ name = 'gopls', cmd = { vim.env.GOPLS }, root_dir = dir, offset_encoding = 'utf-16' }, ev.buf)
    end,
  })
  return dir, greet, use
end

--- wait_gopls waits until gopls is attached to bufnr and initialized.
function G.wait_gopls(H, bufnr)
  H.wait(30000, function()
    for _, c in ipairs(compat.get_clients({ bufnr = bufnr, name = 'gopls' })) do
      if c.initialized then
        return true
      end
    end
    return false
  end, 'gopls to attach and initialize')
end

--- teardown stops gopls.
function G.teardown()
  pcall(vim.api.nvim_del_augroup_by_name, 'e2e_gopls')
  for _, c in ipairs(compat.get_clients({ name = 'gopls' })) do
    compat.stop(c)
  end
  vim.wait(30000, function()
    return #compat.get_clients({ name = 'gopls' }) == 0
  end, 20)
end

return G

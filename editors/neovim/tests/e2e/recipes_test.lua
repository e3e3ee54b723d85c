-- The install recipes of README.md and docs/neovim.md, run exactly as written, each in a
-- fresh Neovim that loads the plugin the way its manager does:
--   lazy.nvim: 'loadplugins' off (lazy sources plugin/ files itself, and only
--     those of the plugin's root, which has none), the root appended to
--     'runtimepath', then the spec's config(plugin);
--   packer.nvim: the `rtp` subdirectory appended to 'runtimepath', config()
--     run, and Neovim's own loading of plugin/ files afterwards.
-- Each must define :CatbuddyFix and get cb-ls (found on PATH, as the recipes
-- assume) through initialize for a project file.
local E = require('e2e.env')

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local repo = vim.fn.fnamemodify(here, ':h:h:h:h')

-- recipe returns the Lua code block that follows "<label>:" in doc.
local function recipe(H, doc, label)
  local text = table.concat(vim.fn.readfile(repo .. '/' .. doc), '\n')
  local code = text:match(vim.pesc(label) .. ':%s*```lua\n(.-)\n```')
  H.truthy(code, 'a ```lua block after "' .. label .. ':" in ' .. doc)
  return code
end

-- Each emulation is Lua run in the child's init file with `root` (the
-- checkout) and `code` (the README's block) defined.
local managers = {
  lazy = [[
vim.go.loadplugins = false
local spec = assert(load('return ' .. code))()
vim.opt.rtp:append(root)
for _, f in ipairs(vim.fn.glob(root .. '/plugin/*.lua', false, true)) do dofile(f) end
spec.config({ dir = root, name = 'cb-ls' })
]],
  packer = [[
local configs = {}
function use(spec)
  if spec.rtp then vim.opt.rtp:append(root .. '/' .. spec.rtp) end
  configs[#configs + 1] = spec.config
end
assert(load(code))()
for _, c in ipairs(configs) do c() end
]],
}

-- child writes the init file for manager and recipe code, runs it in a
-- fresh Neovim on project's calc.go and returns what it reported.
local function child(H, manager, code, project)
  local dir = H.tmpdir()
  local result = dir .. '/result.json'
  local init = {
    'local root, code, result = ' .. vim.inspect(repo) .. ', ' .. vim.inspect(code) .. ', ' .. vim.inspect(result),
    'local notes = {}',
    'vim.notify = function(m) notes[#notes + 1] = tostring(m) end',
    managers[manager],
    [[
vim.api.nvim_create_autocmd('VimEnter', { once = true, nested = true, callback = function()
  local res = { fix = vim.fn.exists(':CatbuddyFix'), ask = vim.fn.exists(':CatbuddyAsk') }
  vim.cmd('edit ' .. vim.fn.fnameescape(]] .. vim.inspect(project .. '/calc.go') .. [[))
  res.initialized = vim.wait(20000, function()
    local c = require('catbuddy.client').get(0)
    return c ~= nil and c.initialized == true
  end, 20)
  res.notes = notes
  vim.fn.writefile({ vim.json.encode(res) }, result)
  vim.cmd('qall!')
end })
]],
  }
  H.write(dir .. '/init.lua', vim.split(table.concat(init, '\n'), '\n'))
  local nvim = vim.env.NVIM_BIN or vim.v.progpath
  local output, done = {}, nil
  local collect = function(_, data)
    vim.list_extend(output, data)
  end
  local job = vim.fn.jobstart({ nvim, '--headless', '-n', '-i', 'NONE', '-u', dir .. '/init.lua' }, {
    cwd = project,
    env = { PATH = vim.fn.fnamemodify(vim.env.CB_LS, ':h') .. ':' .. vim.env.PATH },
    on_stdout = collect,
    on_stderr = collect,
    on_exit = function(_, code)
      done = code
    end,
  })
  H.truthy(job > 0, 'the child Neovim started')
  H.wait(60000, function()
    return done ~= nil
  end, 'the child Neovim to exit')
  H.eq(1, vim.fn.filereadable(result), 'the child wrote its result (exit ' .. tostring(done) .. ', output: ' .. table.concat(output, '\n') .. ')')
  return vim.json.decode(table.concat(vim.fn.readfile(result), '\n'))
end

return function(H)
  for _, c in ipairs({
    { 'README.md', 'lazy', 'lazy.nvim' },
    { 'README.md', 'packer', 'packer.nvim' },
    { 'docs/neovim.md', 'lazy', 'lazy.nvim' },
    { 'docs/neovim.md', 'packer', 'packer.nvim' },
  }) do
    local doc, manager, label = c[1], c[2], c[3]
    H.test('e2e: the ' .. label .. ' recipe of ' .. doc .. ' defines the commands and starts cb-ls', function()
      local code = recipe(H, doc, label)
      local project = vim.fn.resolve(H.tmpdir())
      vim.fn.mkdir(project .. '/.git', 'p')
      H.write(project .. '/calc.go', E.buggy)
      local res = child(H, manager, code, project)
      local notes = table.concat(res.notes or {}, ' | ')
      H.eq(2, res.fix, ':CatbuddyFix is defined (notifications: ' .. notes .. ')')
      H.eq(2, res.ask, ':CatbuddyAsk is defined')
      H.eq(true, res.initialized, 'cb-ls answered initialize (notifications: ' .. notes .. ')')
    end)
  end
end

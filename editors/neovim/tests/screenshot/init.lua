-- Neovim config for the review screenshot: the plugin, the real cb-ls and
-- the scripted model (its URL in $MODEL_URL); runs :CatbuddyFix on line 5
-- once cb-ls is ready, so the built-in review window opens.
local root = vim.env.PLUGIN_DIR
vim.opt.runtimepath:prepend(root)
vim.o.termguicolors = true
vim.o.swapfile = false
vim.o.number = true
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.cmd('runtime plugin/catbuddy.lua')
if vim.env.SHOT == 'pending' then
  -- pending.sh: a dark scheme with Neovim 0.10's default diff colours
  -- (0.7's defaults put blue text on blue), and a statusline with the
  -- plugin's pending count and, as a user might add, its default keys.
  for group, spec in pairs({
    Normal = { fg = '#e0e2ea' },
    LineNr = { fg = '#4f5258' },
    SignColumn = {},
    Comment = { fg = '#9b9ea4' },
    Statement = { fg = '#e0e2ea', bold = true },
    Type = { fg = '#a6dbff' },
    Special = { fg = '#8cf8f7' },
    Constant = { fg = '#b3f6c0' },
    Identifier = { fg = '#e0e2ea' },
    DiffAdd = { fg = '#e0e2ea', bg = '#005523' },
    DiffDelete = { fg = '#ffc0b9', bg = '#590008' },
    DiffChange = { fg = '#e0e2ea', bg = '#4f5258' },
    StatusLine = { fg = '#e0e2ea', bg = '#2c2e33' },
    EndOfBuffer = { fg = '#3b3e44' },
  }) do
    vim.api.nvim_set_hl(0, group, spec)
  end
  _G.catbuddy_screenshot_status = function()
    return require('catbuddy.pending').statusline()
  end
  vim.o.statusline = ' %f%=%{v:lua.catbuddy_screenshot_status()}  \\ak keep  \\au undo  ]c next hunk '
end
require('catbuddy').setup({
  cmd = { vim.env.CB_LS, 'serve' },
  provider = 'openai',
  model = 'scripted',
  base_url = vim.env.MODEL_URL,
  api_key = 'screenshot',
  notify_progress = false,
  -- pending.sh shows pending changes; the others the reviewed flow.
  review = vim.env.SHOT == 'pending' and 'pending' or 'before',
})
vim.api.nvim_create_autocmd('VimEnter', {
  callback = function()
    local timer = (vim.uv or vim.loop).new_timer()
    timer:start(100, 100, vim.schedule_wrap(function()
      local c = require('catbuddy.client').get(0)
      if c and c.initialized then
        timer:stop()
        if vim.env.SHOT == 'chat' then
          -- chat.sh: the chat beside the code, then an Explain run in it.
          vim.cmd('CatbuddyChat')
          vim.cmd('wincmd p')
          vim.cmd('4,6CatbuddyExplain')
        elseif vim.env.SHOT == 'pending' then
          -- pending.sh: a run whose edits stay pending, shown inline.
          vim.o.signcolumn = 'yes'
          vim.cmd('5CatbuddyFix')
        elseif vim.env.SHOT == 'trust' then
          -- trust.sh: the server asks about the project on its own.
          return
        else
          vim.cmd('5CatbuddyFix')
        end
      end
    end))
  end,
})

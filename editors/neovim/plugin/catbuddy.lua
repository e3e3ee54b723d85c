-- catbuddy's user commands. They are cheap to define; the plugin itself
-- loads on first use. cb-ls starts once require('catbuddy').setup() ran.
if vim.g.loaded_catbuddy then
  return
end
vim.g.loaded_catbuddy = true
require('catbuddy.commands').define()

-- catbuddy's user commands. They are cheap to define; the plugin itself
-- loads on first use. cb-ls starts once require('catbuddy').setup() ran.
if vim.g.loaded_catbuddy then
  return
end
vim.g.loaded_catbuddy = true

local function cb()
  return require('catbuddy')
end

local function range_opts(o, input)
  return { line1 = o.line1, line2 = o.line2, range = o.range, input = input }
end

vim.api.nvim_create_user_command('CatbuddyFix', function(o)
  cb().fix(range_opts(o, o.args))
end, { range = true, nargs = '*', desc = 'Agent: fix the selection (or the current line)' })

vim.api.nvim_create_user_command('CatbuddyAsk', function(o)
  cb().ask(range_opts(o, o.args))
end, { range = true, nargs = '*', desc = 'Agent: ask about the selection' })

vim.api.nvim_create_user_command('CatbuddyExplain', function(o)
  cb().explain(range_opts(o, o.args))
end, { range = true, nargs = '*', desc = 'Agent: explain the selection' })

vim.api.nvim_create_user_command('CatbuddyRun', function(o)
  local id, input = o.args:match('^(%S+)%s*(.*)$')
  if not id then
    vim.notify('catbuddy: usage: :CatbuddyRun {command} [input]', vim.log.levels.ERROR)
    return
  end
  cb().run(id, range_opts(o, input))
end, {
  range = true,
  nargs = '+',
  desc = 'Agent: run a built-in or custom command',
  complete = function(lead, line)
    -- Only the first argument is a command id.
    if line:match('CatbuddyRun%s+%S+%s') then
      return {}
    end
    local out = {}
    for _, c in ipairs(cb().commands()) do
      if c.id:sub(1, #lead) == lead then
        out[#out + 1] = c.id
      end
    end
    return out
  end,
})

vim.api.nvim_create_user_command('CatbuddyCancel', function()
  cb().cancel()
end, { desc = 'Agent: cancel the running run' })

vim.api.nvim_create_user_command('CatbuddyTranscript', function(o)
  cb().transcript(o.args ~= '' and o.args or nil)
end, { nargs = '?', desc = 'Agent: show the last run transcript' })

vim.api.nvim_create_user_command('CatbuddyChat', function()
  require('catbuddy.chat').toggle()
end, { desc = 'Agent: open or close the chat for the current run' })

vim.api.nvim_create_user_command('CatbuddyRuns', function()
  require('catbuddy.chat').pick()
end, { desc = 'Agent: pick an earlier run and open it in the chat' })

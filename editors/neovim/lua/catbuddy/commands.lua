-- catbuddy's user commands. define() is called by plugin/catbuddy.lua (for
-- plugin managers that source plugin/ files) and again by setup() (for those
-- that do not: lazy.nvim sources only the plugin root's plugin/ directory,
-- and the Neovim client lives in editors/neovim). Defining them twice is
-- harmless: nvim_create_user_command replaces a command of the same name.
-- The commands load the rest of the plugin only when used.
local M = {}

local function cb()
  return require('catbuddy')
end

local function range_opts(o, input)
  return { line1 = o.line1, line2 = o.line2, range = o.range, input = input }
end

--- define creates the :Catbuddy* commands (again).
function M.define()
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

  vim.api.nvim_create_user_command('CatbuddyTrust', function()
    cb().trust(true)
  end, { desc = "Agent: trust this project's .catbuddy settings and MCP servers (asks, naming them)" })

  vim.api.nvim_create_user_command('CatbuddyUntrust', function()
    cb().trust(false)
  end, { desc = "Agent: stop trusting this project (its MCP servers stop)" })

  vim.api.nvim_create_user_command('CatbuddyKeep', function(o)
    cb().keep(o.args == 'all')
  end, { nargs = '?', complete = function() return { 'all' } end, desc = 'Agent: keep the pending hunk under the cursor ([all]: every one of the buffer)' })

  -- :CatbuddyUndo discards pending changes (the hunk under the cursor, or
  -- all of the buffer's); with a runId, or with nothing pending under the
  -- cursor, it undoes a run that already landed (catbuddy.undoRun).
  vim.api.nvim_create_user_command('CatbuddyUndo', function(o)
    local pending = require('catbuddy.pending')
    local buf = vim.api.nvim_get_current_buf()
    if o.args == 'all' then
      cb().discard(true)
    elseif o.args == '' and pending.at(buf, vim.api.nvim_win_get_cursor(0)[1] - 1) then
      cb().discard(false)
    else
      cb().undo(o.args ~= '' and o.args or nil)
    end
  end, { nargs = '?', desc = 'Agent: undo the pending hunk under the cursor ([all]: the buffer\'s), or a run after review' })

  -- :CatbuddyPending lists every pending hunk in the quickfix list;
  -- :CatbuddyPending resolve {both|theirs|run|markers} resolves the
  -- conflicted hunk under the cursor.
  vim.api.nvim_create_user_command('CatbuddyPending', function(o)
    local args = o.fargs
    if #args == 0 then
      if require('catbuddy.pending').quickfix() > 0 then
        vim.cmd('copen')
      else
        vim.notify('catbuddy: nothing pending')
      end
    elseif args[1] == 'resolve' and #args == 2 then
      cb().resolve(args[2])
    else
      vim.notify('catbuddy: usage: :CatbuddyPending [resolve both|theirs|run|markers]', vim.log.levels.ERROR)
    end
  end, {
    nargs = '*',
    complete = function(lead, line)
      return require('catbuddy.pending_resolve').complete(lead, line)
    end,
    desc = 'Agent: every pending hunk in the quickfix list; resolve {both|theirs|run|markers}: the conflicted hunk under the cursor',
  })
end

return M

-- catbuddy.ask: the client's window/showMessageRequest handler. cb-ls asks
-- before anything runs on the user's behalf (trust a project, run a
-- command); the question is shown with vim.ui.select (so Telescope,
-- dressing.nvim or fzf-lua users get their own picker) and the handler
-- answers only when the user chose. A dismissed picker answers vim.NIL,
-- which the server takes as "no".
--
-- Neovim's default handler answers with inputlist() on the main thread;
-- this one waits the way the review does (review.wait_for): yielding in
-- 0.10+, vim.wait in 0.7.
local M = {}

-- How long a question stays open before it counts as dismissed.
M.timeout_ms = 30 * 60 * 1000

--- choose shows params (a ShowMessageRequestParams) with vim.ui.select
--- and returns the chosen action item, or vim.NIL when dismissed.
function M.choose(params)
  local actions = type(params) == 'table' and type(params.actions) == 'table' and params.actions or {}
  if #actions == 0 then
    -- Nothing to choose from: the message is all there is.
    vim.notify('catbuddy: ' .. tostring(params and params.message or ''), vim.log.levels.INFO)
    return vim.NIL
  end
  local chosen
  local answered = require('catbuddy.review').wait_for(function(done)
    vim.ui.select(actions, {
      prompt = 'cb-ls: ' .. tostring(params.message or ''),
      format_item = function(a)
        return tostring(a.title)
      end,
      kind = 'catbuddy.messageRequest',
    }, function(item)
      chosen = item
      done(true)
    end)
  end, M.timeout_ms)
  if not answered or chosen == nil then
    return vim.NIL
  end
  return chosen
end

--- handler is the window/showMessageRequest handler for a client.
function M.handler(_, params)
  return M.choose(params)
end

return M

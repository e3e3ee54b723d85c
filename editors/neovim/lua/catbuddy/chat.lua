-- catbuddy.chat: the chat buffer. :CatbuddyChat shows the current run as a
-- conversation in a markdown split — the user's messages, the agent's text
-- as it streams, one row per tool call, the answer — with a prompt at the
-- bottom that sends catbuddy.reply (or starts an Ask when no run is shown).
-- It is drawn from the runEvents catbuddy.runs keeps; a run picked with
-- :CatbuddyRuns that this Neovim never saw starts from its transcript.
local runs = require('catbuddy.runs')
local compat = require('catbuddy.compat')

local M = {}

M.name = 'catbuddy://chat'
--- PROMPT separates the conversation from the reply the user types.
M.PROMPT = '── reply below · <CR>/<C-s> sends · <C-c> cancels · q closes ──'

local state = { buf = nil, key = nil, pending = false, source = nil }

local function valid(buf)
  return buf ~= nil and vim.api.nvim_buf_is_valid(buf)
end

--- label is a tool call's short form: the tool and what it works on
--- (grep's and glob's pattern before their path, as the server's own labels).
local function label(tool, args)
  local s = tostring(tool or '?')
  if type(args) == 'table' then
    for _, k in ipairs({ 'pattern', 'path', 'file_path', 'command', 'url' }) do
      if type(args[k]) == 'string' and args[k] ~= '' then
        local v = args[k]:gsub('\n.*', ' …')
        if #v > 60 then
          v = v:sub(1, 60) .. '…'
        end
        return s .. ' ' .. v
      end
    end
  end
  return s
end

local function split(text)
  return vim.split(text or '', '\n', { plain = true })
end

--- lines renders run r as markdown lines (without the prompt).
function M.lines(r)
  local out = { '# ' .. (r.title or r.command or 'Agent') .. ' (' .. tostring(r.id) .. ')' }
  local function add(list)
    vim.list_extend(out, list)
  end
  if r.history then
    -- A stored run: its transcript so far.
    add({ '' })
    add(r.history)
  end
  local text = nil -- the assistant text being streamed
  local calls = {}
  local tokens = { 0, 0, 0 } -- input, output, input read from the prompt cache
  local function flush()
    if text then
      add(split(text))
      text = nil
    end
  end
  for _, e in ipairs(r.events) do
    local k = e.kind
    if k == 'start' then
      flush()
      local input = e.input
      if not input or input == '' then
        input = (e.title or r.title or 'Agent') .. (r.file and (' on ' .. r.file) or '')
      end
      add({ '', '## You', '' })
      add(split(input))
      add({ '', '## Agent', '' })
    elseif k == 'text' then
      text = (text or '') .. (e.text or '')
    elseif k == 'tool_call' then
      calls[e.callId or ''] = e.args
    elseif k == 'tool_result' then
      flush()
      local row = '- `' .. label(e.tool, calls[e.callId or '']) .. '`'
      if e.edit then
        row = string.format('- `%s %s +%d −%d`', tostring(e.tool), tostring(e.edit.path), e.edit.added or 0, e.edit.removed or 0)
      end
      local code = type(e.output) == 'string' and e.output:match('%[exit code (%-?%d+)%]')
      if code then
        row = row .. ' → exit ' .. code
      end
      if e.isError then
        row = row .. ' ✗ ' .. (tostring(e.output or ''):gsub('^Error: ', ''):gsub('\n.*', ' …'))
      end
      add({ row })
      -- The next text is a new paragraph.
      text = nil
      add({ '' })
    elseif k == 'usage' and e.usage then
      tokens[1] = tokens[1] + (e.usage.inputTokens or 0)
      tokens[2] = tokens[2] + (e.usage.outputTokens or 0)
      tokens[3] = tokens[3] + (e.usage.cachedInputTokens or 0)
    elseif k == 'end' then
      flush()
      if e.outcome ~= 'done' then
        add({ '', '**' .. tostring(e.outcome) .. '**' .. (e.error and (': ' .. e.error) or '') })
      elseif e.answer and e.answer ~= '' and not (out[#out] and out[#out] ~= '' and vim.endswith(table.concat(out, '\n'), vim.trim(e.answer))) then
        add({ '' })
        add(split(e.answer))
      end
      local cached = tokens[3] > 0 and string.format(' (%d cached)', tokens[3]) or ''
      add({ '', string.format('_%s · %d in%s / %d out tokens_', tostring(e.outcome), tokens[1], cached, tokens[2]) })
    end
  end
  flush()
  if not r.outcome and #r.events > 0 then
    add({ '', '_… running (<C-c> cancels)_' })
  end
  return out
end

-- prompt_start returns the 0-based line after the prompt separator.
local function prompt_start(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i = #lines, 1, -1 do
    if lines[i] == M.PROMPT then
      return i
    end
  end
  return nil
end

--- prompt returns the text typed below the separator.
function M.prompt()
  if not valid(state.buf) then
    return ''
  end
  local start = prompt_start(state.buf)
  if not start then
    return ''
  end
  return vim.trim(table.concat(vim.api.nvim_buf_get_lines(state.buf, start, -1, false), '\n'))
end

--- render redraws the conversation above the prompt, keeping what the
--- user is typing, and keeps windows that were at the end following it.
function M.render()
  state.pending = false
  local buf = state.buf
  if not valid(buf) then
    return
  end
  local r = state.key and runs.runs[state.key]
  local lines = r and M.lines(r) or { '# Catbuddy', '', 'No run yet: type a question below and press <CR> to ask the agent.' }
  lines[#lines + 1] = ''
  lines[#lines + 1] = M.PROMPT
  local start = prompt_start(buf)
  local typed = start and vim.api.nvim_buf_get_lines(buf, start, -1, false) or { '' }
  if #typed == 0 then
    typed = { '' }
  end
  local following = {}
  for _, w in ipairs(vim.fn.win_findbuf(buf)) do
    following[w] = vim.api.nvim_win_get_cursor(w)[1] >= (start or 0)
  end
  vim.api.nvim_buf_set_lines(buf, 0, start or -1, false, lines)
  if not start then
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, typed)
  end
  vim.api.nvim_buf_set_option(buf, 'modified', false)
  local total = vim.api.nvim_buf_line_count(buf)
  for w, follow in pairs(following) do
    if follow and vim.api.nvim_win_is_valid(w) then
      pcall(vim.api.nvim_win_set_cursor, w, { total, 0 })
    end
  end
end

local function schedule_render()
  if not state.pending then
    state.pending = true
    vim.schedule(M.render)
  end
end

--- on_event is called by catbuddy.runs for every runEvent: a new run
--- becomes the one shown, and the shown one is redrawn.
function M.on_event(r, params)
  if params.kind == 'start' then
    state.key = r.key
  end
  if valid(state.buf) and r.key == state.key then
    schedule_render()
  end
end

--- show makes run key the one shown (nil: the last run).
function M.show(key)
  state.key = key or runs.last
  M.render()
end

--- current returns the run shown, or nil.
function M.current()
  return state.key and runs.runs[state.key]
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'catbuddy' })
end

local function clear_prompt()
  local start = valid(state.buf) and prompt_start(state.buf)
  if start then
    vim.api.nvim_buf_set_lines(state.buf, start, -1, false, { '' })
    vim.api.nvim_buf_set_option(state.buf, 'modified', false)
  end
end

--- send sends the prompt: a reply to the run shown, or a new Ask.
function M.send()
  local text = M.prompt()
  if text == '' then
    notify('catbuddy: type your message below the line first', vim.log.levels.WARN)
    return false
  end
  local r = M.current()
  local cb = require('catbuddy')
  local client = require('catbuddy.client')
  if not r then
    local src = state.source
    if not (src and vim.api.nvim_buf_is_valid(src)) then
      notify('catbuddy: no run to reply to and no project buffer to ask from', vim.log.levels.ERROR)
      return false
    end
    clear_prompt()
    return cb.run('ask', { bufnr = src, input = text, line1 = 1, line2 = 1, range = 0 })
  end
  if not r.outcome then
    notify('catbuddy: the run is still going; wait for it or cancel it with <C-c>', vim.log.levels.WARN)
    return false
  end
  local c = vim.lsp.get_client_by_id(r.client_id)
  if not c then
    notify('catbuddy: the run\'s cb-ls is gone; pick the run again with :CatbuddyRuns', vim.log.levels.ERROR)
    return false
  end
  clear_prompt()
  client.execute(c, 'catbuddy.reply', { runId = r.id, input = text })
  return true
end

--- cancel cancels the run shown.
function M.cancel()
  local r = M.current()
  local c = r and not r.outcome and vim.lsp.get_client_by_id(r.client_id)
  if not c then
    notify('catbuddy: nothing running here')
    return false
  end
  require('catbuddy.client').execute(c, 'catbuddy.cancel', { runId = r.id })
  return true
end

local function buffer()
  if valid(state.buf) then
    return state.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, M.name)
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  compat.set_filetype(buf, 'markdown')
  local function map(mode, lhs, fn, desc)
    vim.api.nvim_buf_set_keymap(buf, mode, lhs, '', { noremap = true, silent = true, callback = fn, desc = desc })
  end
  map('n', '<CR>', M.send, 'catbuddy: send the reply')
  map('i', '<C-s>', function()
    vim.cmd('stopinsert')
    M.send()
  end, 'catbuddy: send the reply')
  map('n', 'q', M.close, 'catbuddy: close the chat')
  map('n', '<C-c>', M.cancel, 'catbuddy: cancel the run')
  map('i', '<C-c>', M.cancel, 'catbuddy: cancel the run')
  state.buf = buf
  return buf
end

--- window returns the chat's window in this tab, or nil.
function M.window()
  if not valid(state.buf) then
    return nil
  end
  local w = vim.fn.bufwinid(state.buf)
  return w ~= -1 and w or nil
end

--- open shows the chat in a right split (or focuses it) for the current
--- run, with the cursor on the prompt.
function M.open(key)
  local cur = vim.api.nvim_get_current_buf()
  if cur ~= state.buf and vim.api.nvim_buf_get_option(cur, 'buftype') == '' then
    state.source = cur
  end
  local buf = buffer()
  if key or not state.key then
    state.key = key or runs.last
  end
  local w = M.window()
  if w then
    vim.api.nvim_set_current_win(w)
  else
    vim.cmd('botright vsplit')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_win_set_option(0, 'wrap', true)
    vim.api.nvim_win_set_option(0, 'linebreak', true)
    vim.api.nvim_win_set_option(0, 'number', false)
  end
  M.render()
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buf), 0 })
  return buf
end

--- close closes the chat's window (the buffer and its prompt remain).
function M.close()
  local w = M.window()
  if w and #vim.api.nvim_list_wins() > 1 then
    vim.api.nvim_win_close(w, false)
  end
end

--- toggle opens the chat, or closes it when it is showing.
function M.toggle()
  if M.window() then
    M.close()
  else
    M.open()
  end
end

--- pick lists the runs (this session's and the stored ones) from the
--- current buffer's cb-ls and opens the one chosen in the chat.
function M.pick(bufnr)
  local client = require('catbuddy.client')
  local c = client.get(bufnr or vim.api.nvim_get_current_buf())
  if not c and state.key and runs.runs[state.key] then
    c = vim.lsp.get_client_by_id(runs.runs[state.key].client_id)
  end
  if not c then
    notify('catbuddy: no cb-ls client for this buffer', vim.log.levels.ERROR)
    return false
  end
  compat.request(c, 'workspace/executeCommand', { command = 'catbuddy.listRuns', arguments = {} }, function(err, list)
    if err or type(list) ~= 'table' or #list == 0 then
      notify(err and ('catbuddy: catbuddy.listRuns: ' .. tostring(err.message)) or 'catbuddy: no runs yet', err and vim.log.levels.ERROR or nil)
      return
    end
    vim.ui.select(list, {
      prompt = 'Agent runs',
      format_item = function(it)
        local files = type(it.files) == 'table' and #it.files > 0 and (' · ' .. table.concat(it.files, ', ')) or ''
        local pend = (tonumber(it.pending) or 0) > 0 and string.format(' · %d pending', it.pending) or ''
        return string.format('%s — %s · %d turn(s)%s%s', tostring(it.title), tostring(it.outcome), it.turns or 0, pend, files)
      end,
    }, function(it)
      if not it then
        return
      end
      local r = runs.ensure(it.runId, c.id)
      r.title = r.title or it.title
      r.command = r.command or it.command
      if #r.events == 0 then
        -- Never seen here: start from its transcript, ended as stored.
        r.outcome = it.outcome ~= 'running' and it.outcome or nil
        local path = it.transcriptUri and vim.uri_to_fname(it.transcriptUri)
        r.history = path and vim.fn.filereadable(path) == 1 and vim.fn.readfile(path)
          or { string.format('_Stored run: %d turn(s), %s._', it.turns or 0, tostring(it.outcome)) }
        if it.uri then
          r.bufnr = vim.fn.bufnr(vim.uri_to_fname(it.uri))
          r.bufnr = r.bufnr ~= -1 and r.bufnr or nil
        end
      end
      M.open(r.key)
    end)
  end)
  return true
end

return M

local runs = require('catbuddy.runs')
local client = require('catbuddy.client')
local config = require('catbuddy.config')

return function(H)
  H.test('runs: the final answer is shown once even when showMessage repeats it', function()
    local cfg = assert(config.resolve({ notify_progress = true }))
    client.cfg = cfg
    local notes, restore = H.capture_notify()
    local ctx = { client_id = 99 }
    runs.on_event({ runId = 'r1', kind = 'start', command = 'fix', title = 'Agent: Fix This' }, ctx, cfg)
    runs.on_progress({ token = 't', value = { kind = 'report', message = 'edit_file calc.go +1 -1' } }, cfg)
    H.eq({ 'r1' }, runs.active(99), 'active')
    runs.on_event({ runId = 'r1', kind = 'end', outcome = 'done', answer = 'Fixed it.', transcriptUri = 'file:///tmp/t.md' }, ctx, cfg)
    local show = client.make_config('/tmp', cfg).handlers['window/showMessage']
    show(nil, { type = 3, message = 'Fixed it.' }, ctx, {})
    restore()
    H.eq({ { msg = 'edit_file calc.go +1 -1', level = vim.log.levels.INFO }, { msg = 'Fixed it.', level = vim.log.levels.INFO } }, notes, 'notifications')
    H.eq({}, runs.active(99), 'ended')
    H.eq('file:///tmp/t.md', runs.get(99, 'r1').transcript_uri, 'transcript uri')
    H.eq('99/r1', runs.last, 'last run')
  end)

  H.test('runs: errors and cancellations are shown at their level', function()
    local cfg = assert(config.resolve({}))
    local notes, restore = H.capture_notify()
    runs.on_event({ runId = 'r2', kind = 'start', title = 'Agent: Explain This' }, {}, cfg)
    runs.on_event({ runId = 'r2', kind = 'end', outcome = 'error', error = 'model: 401 unauthorized' }, {}, cfg)
    runs.on_event({ runId = 'r3', kind = 'end', outcome = 'cancelled' }, {}, cfg)
    restore()
    H.eq({ msg = 'Agent: Explain This failed: model: 401 unauthorized', level = vim.log.levels.ERROR }, notes[1], 'error')
    H.eq({ msg = 'Agent: cancelled', level = vim.log.levels.WARN }, notes[2], 'cancelled')
  end)

  H.test('runs: the fallback transcript renders the events', function()
    local r = { id = 'r4', title = 'Agent: Fix This', events = {
      { kind = 'text', text = 'Looking at calc.go' },
      { kind = 'tool_call', tool = 'read_file', args = { path = 'calc.go' } },
      { kind = 'tool_result', tool = 'read_file', output = 'package calc\n...' },
      { kind = 'end', outcome = 'done', answer = 'Fixed.' },
    } }
    local text = table.concat(runs.render(r), '\n')
    H.contains(text, '# Agent: Fix This (r4)', 'title')
    H.contains(text, '- **read_file** `{"path":"calc.go"}`', 'tool call')
    H.contains(text, '  - package calc …', 'tool result first line')
    H.contains(text, '**done**\n\nFixed.', 'answer')
    local b = runs.open_transcript('catbuddy://transcript/r4', runs.render(r))
    H.eq('markdown', vim.api.nvim_buf_get_option(b, 'filetype'), 'filetype')
    H.eq(false, vim.api.nvim_buf_get_option(b, 'modifiable'), 'read-only scratch')
    vim.cmd('silent! bwipe! ' .. b)
  end)

  -- An ftplugin that fails (0.12's markdown one when its parser cannot
  -- load, an outdated nvim-treesitter parser) is a FileType autocommand
  -- that errors: the buffers still open, and the commands that open them
  -- end without an error.
  H.test('runs, chat: a FileType autocommand that fails does not fail the transcript or the chat', function()
    local group = vim.api.nvim_create_augroup('catbuddy_test_broken_ftplugin', { clear = true })
    vim.api.nvim_create_autocmd('FileType', { group = group, pattern = 'markdown', callback = function()
      error('Parser could not be created for language "markdown"')
    end })
    local chat = require('catbuddy.chat')
    -- As a command line runs them: nvim_exec2 (0.9+) or nvim_exec (0.7).
    local function exec(cmd)
      if vim.api.nvim_exec2 then
        return vim.api.nvim_exec2(cmd, {})
      end
      return vim.api.nvim_exec(cmd, false)
    end
    -- The broken autocommand goes whatever happens: left behind, it
    -- would fail every later test that opens a markdown buffer.
    local passed, failure = pcall(function()
      local ok, err = pcall(exec, "lua _G.catbuddy_test_buf = require('catbuddy.runs').open_transcript('catbuddy://transcript/broken-ft', { '# t' })")
      H.eq(true, ok, 'opening the transcript: ' .. tostring(err))
      H.eq('markdown', vim.api.nvim_buf_get_option(_G.catbuddy_test_buf, 'filetype'), 'the transcript is markdown')
      ok, err = pcall(exec, "lua require('catbuddy.chat').open()")
      H.eq(true, ok, 'opening the chat: ' .. tostring(err))
      H.truthy(chat.window(), 'the chat is shown')
      H.eq('markdown', vim.api.nvim_buf_get_option(vim.api.nvim_win_get_buf(chat.window()), 'filetype'), 'the chat is markdown')
    end)
    pcall(chat.close)
    vim.api.nvim_del_augroup_by_id(group)
    if _G.catbuddy_test_buf then
      vim.cmd('silent! bwipe! ' .. _G.catbuddy_test_buf)
      _G.catbuddy_test_buf = nil
    end
    assert(passed, failure)
  end)

  H.test('health: catbuddy.status as lines, each server with its memory and the sum', function()
    local health = require('catbuddy.health')
    H.eq({
      '2 language servers of its own, 242.4 MB resident in all',
      'gopls (pid 42): 162.4 MB resident (run view)',
      'pyright (pid 43): 80.0 MB resident',
    }, health.status_lines({ version = 'v1', languageServers = {
      { server = 'gopls', pid = 42, rss = 162400000, runView = true, text = 'gopls (pid 42): 162.4 MB resident (run view)' },
      { server = 'pyright', pid = 43, rss = 80000000, runView = false, text = 'pyright (pid 43): 80.0 MB resident' },
    } }), 'two servers')
    H.eq({ '1 language server of its own', 'gopls (pid 7): memory unknown' },
      health.status_lines({ languageServers = { { server = 'gopls', pid = 7, rss = -1, text = 'gopls (pid 7): memory unknown' } } }), 'memory unknown')
    H.eq({ 'no language servers of its own running' }, health.status_lines({ version = 'v1', languageServers = {} }), 'none')
  end)

  H.test('client: root from .git upward, else the current directory', function()
    local d = vim.fn.resolve(H.tmpdir())
    vim.fn.mkdir(d .. '/proj/.git', 'p')
    vim.fn.mkdir(d .. '/proj/a/b', 'p')
    H.eq(d .. '/proj', client.root(d .. '/proj/a/b/x.go', { '.git' }), 'git root')
    H.eq(vim.fn.getcwd(), client.root(d .. '/x.go', { 'no-such-marker-here' }), 'cwd')
  end)

  H.test('client: workspace/configuration answers the catbuddy section without the key', function()
    local cfg = assert(config.resolve({ provider = 'anthropic', model = 'm', api_key = 'secret', max_steps = 3 }))
    client.cfg = cfg
    local handler = client.make_config('/tmp', cfg).handlers['workspace/configuration']
    local res = handler(nil, { items = { { section = 'catbuddy' }, { section = 'catbuddy.model' }, { section = 'gopls' } } }, {})
    H.eq({ provider = 'anthropic', model = 'm', maxSteps = 3 }, res[1], 'section')
    H.eq('m', res[2], 'sub-key')
    H.eq(vim.NIL, res[3], 'other section')
    H.eq('secret', client.make_config('/tmp', cfg).init_options.apiKey, 'key at initialize')
  end)

  H.test('client: attaches to file buffers only', function()
    local cfg = assert(config.resolve({}))
    local scratch = vim.api.nvim_create_buf(false, true)
    H.eq(false, client.eligible(scratch, cfg), 'scratch')
    vim.cmd('edit ' .. vim.fn.fnameescape(H.tmpdir() .. '/x.txt'))
    H.eq(true, client.eligible(vim.api.nvim_get_current_buf(), cfg), 'file')
    H.eq(false, client.eligible(vim.api.nvim_get_current_buf(), assert(config.resolve({ filetypes = { 'go' } }))), 'filetype filter')
  end)
end

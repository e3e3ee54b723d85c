local ask = require('catbuddy.ask')
local client = require('catbuddy.client')
local config = require('catbuddy.config')

local params = {
  type = 2,
  message = 'Trust the project /w/p?\nIt wants to run: sh -c "echo hi"',
  actions = { { title = 'Trust' }, { title = 'Not now' } },
}

-- with_select replaces vim.ui.select with answer(items, opts, on_choice) for fn.
local function with_select(answer, fn)
  local orig = vim.ui.select
  vim.ui.select = answer
  local ok, err = pcall(fn)
  vim.ui.select = orig
  assert(ok, err)
end

return function(H)
  H.test('ask: the client answers window/showMessageRequest with its own handler', function()
    local cfg = assert(config.resolve({}))
    H.eq(ask.handler, client.make_config('/tmp', cfg).handlers['window/showMessageRequest'], 'handler')
  end)

  H.test('ask: vim.ui.select shows the message and the actions; the chosen action is the answer', function()
    local seen
    with_select(function(items, opts, on_choice)
      seen = { items = items, prompt = opts.prompt, shown = vim.tbl_map(opts.format_item, items), kind = opts.kind }
      on_choice(items[1], 1)
    end, function()
      H.eq({ title = 'Trust' }, ask.handler(nil, params, { client_id = 1 }), 'answer')
    end)
    H.eq(params.actions, seen.items, 'items')
    H.eq({ 'Trust', 'Not now' }, seen.shown, 'labels')
    H.contains(seen.prompt, 'sh -c "echo hi"', 'prompt names the command')
    H.eq('catbuddy.messageRequest', seen.kind, 'kind')
  end)

  H.test('ask: an answer that comes later (an asynchronous picker) is waited for', function()
    with_select(function(items, _, on_choice)
      vim.defer_fn(function()
        on_choice(items[2], 2)
      end, 30)
    end, function()
      H.eq({ title = 'Not now' }, ask.choose(params), 'answer')
    end)
  end)

  H.test('ask: a dismissed picker answers vim.NIL', function()
    with_select(function(_, _, on_choice)
      on_choice(nil, nil)
    end, function()
      H.eq(vim.NIL, ask.choose(params), 'dismissed')
    end)
  end)

  H.test('ask: inside a coroutine (0.10+ server requests) the handler yields until the answer', function()
    local answer
    with_select(function(items, _, on_choice)
      vim.defer_fn(function()
        on_choice(items[1], 1)
      end, 30)
    end, function()
      local co = coroutine.create(function()
        answer = ask.choose(params)
      end)
      assert(coroutine.resume(co))
      H.wait(5000, function()
        return answer ~= nil
      end, 'the answer')
    end)
    H.eq({ title = 'Trust' }, answer, 'answer')
  end)

  H.test('ask: a question with no actions is shown and answered vim.NIL', function()
    local notes, restore = H.capture_notify()
    local got = ask.choose({ type = 3, message = 'Just so you know.' })
    restore()
    H.eq(vim.NIL, got, 'answer')
    H.eq({ { msg = 'catbuddy: Just so you know.', level = vim.log.levels.INFO } }, notes, 'shown')
  end)
end

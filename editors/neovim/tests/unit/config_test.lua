local config = require('catbuddy.config')

return function(H)
  H.test('config: defaults', function()
    local cfg = assert(config.resolve(nil))
    H.eq({ 'cb-ls', 'serve' }, cfg.cmd, 'cmd')
    H.eq(true, cfg.save_after_apply, 'save_after_apply')
    H.eq('pending', cfg.review, 'review')
    H.eq({}, cfg.custom_commands, 'custom_commands')
  end)

  H.test('config: settings with no option set encode as a JSON object', function()
    local cfg = assert(config.resolve({}))
    H.eq('{}', vim.json.encode(config.init_options(cfg)), 'initializationOptions')
    H.eq('{"catbuddy":{}}', vim.json.encode({ catbuddy = config.settings(cfg) }), 'workspace/configuration')
    cfg = assert(config.resolve({ model = 'm' }))
    H.eq('{"model":"m"}', vim.json.encode(config.init_options(cfg)), 'with a model')
  end)

  H.test('config: errors name the option', function()
    local cases = {
      { { provder = 'openai' }, 'unknown option "provder"' },
      { { provider = 'gemini' }, 'provider: expected "openai" or "anthropic"' },
      { { review = 'yes' }, 'review: expected "pending", "before", true, false or function' },
      { { max_steps = 0 }, 'max_steps: expected a positive integer' },
      { { save_after_apply = 1 }, 'save_after_apply: expected a boolean' },
      { { cmd = {} }, 'cmd: expected a non-empty list' },
    }
    for _, c in ipairs(cases) do
      local cfg, err = config.resolve(c[1])
      H.eq(nil, cfg, vim.inspect(c[1]))
      H.contains(err, c[2], vim.inspect(c[1]))
    end
  end)

  H.test('config: custom commands go to the server unchecked (it has the one rule)', function()
    local raw = { { id = 'fix', prompt = 'x' }, { id = 'a', prompt = 'x' }, { id = 'a', prompt = 'y' }, { id = 'has space' } }
    local cfg = assert(config.resolve({ custom_commands = raw }))
    H.eq(raw, config.settings(cfg).customCommands, 'customCommands')
  end)

  H.test('config: custom commands as a map become a sorted list', function()
    local cfg = assert(config.resolve({
      custom_commands = { tests = { title = 'Agent: Write tests', prompt = 'Write tests for ${selection}' }, docs = 'Document ${selection}' },
    }))
    H.eq({
      { id = 'docs', prompt = 'Document ${selection}' },
      { id = 'tests', title = 'Agent: Write tests', prompt = 'Write tests for ${selection}' },
    }, cfg.custom_commands, 'custom_commands')
  end)

  H.test('config: settings never carry the API key; initializationOptions do', function()
    local cfg = assert(config.resolve({
      provider = 'openai',
      model = 'gpt-x',
      base_url = 'http://127.0.0.1:1/v1',
      max_steps = 7,
      api_key = function()
        return 'sk-test'
      end,
      custom_commands = { { id = 't', prompt = 'p' } },
    }))
    local s = config.settings(cfg)
    H.eq(nil, s.apiKey, 'settings.apiKey')
    H.eq('http://127.0.0.1:1/v1', s.baseUrl, 'baseUrl')
    H.eq(7, s.maxSteps, 'maxSteps')
    H.eq({ { id = 't', prompt = 'p' } }, s.customCommands, 'customCommands (the server gives the default title)')
    H.eq('sk-test', config.init_options(cfg).apiKey, 'init apiKey')
  end)

  H.test('config: cmd as a string means "<cmd> serve"', function()
    H.eq({ '/opt/cb-ls', 'serve' }, assert(config.resolve({ cmd = '/opt/cb-ls' })).cmd, 'cmd')
  end)
end

-- The setup() examples of the docs (doc/catbuddy.txt, docs/neovim.md) are
-- valid options and do what their comments say: a value marked "default"
-- is the default, and an example keeps the default flow (pending changes).
local config = require('catbuddy.config')

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local docs = {
  here .. '/../../doc/catbuddy.txt',
  here .. '/../../../../docs/neovim.md',
}

-- examples returns the text of each require('catbuddy').setup({...}) call
-- in path: from its line to the first line that closes it.
local function examples(path)
  local out, cur = {}, nil
  for _, line in ipairs(vim.fn.readfile(path)) do
    if cur then
      if line:match('^%s*}%)%s*$') then
        out[#out + 1] = table.concat(cur, '\n') .. '\n}'
        cur = nil
      else
        cur[#cur + 1] = line
      end
    elseif line:match("require%('catbuddy'%)%.setup%({%s*$") then
      cur = { '{' }
    end
  end
  return out
end

return function(H)
  H.test('docs: the setup() examples are valid and keep what they say', function()
    local seen = 0
    for _, path in ipairs(docs) do
      for i, text in ipairs(examples(path)) do
        local where = vim.fn.fnamemodify(path, ':t') .. ' example ' .. i
        seen = seen + 1
        local chunk = assert(loadstring('return ' .. text, where))
        local opts = chunk()
        local cfg, err = config.resolve(opts)
        H.truthy(cfg, where .. ': ' .. tostring(err))
        H.truthy(config.pending(cfg), where .. ': keeps the default flow (pending changes), review = ' .. vim.inspect(opts.review))
        for _, line in ipairs(vim.split(text, '\n', { plain = true })) do
          local key = line:match('^%s*([%w_]+)%s*=.*%-%-%s*default')
          if key then
            H.eq(config.defaults[key], opts[key], where .. ': ' .. key .. ' is marked default')
          end
        end
      end
    end
    H.eq(true, seen >= 2, 'examples found: ' .. seen)
  end)
end

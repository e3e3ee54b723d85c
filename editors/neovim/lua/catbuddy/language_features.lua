-- catbuddy.language_features: the editor's other language servers as the
-- agent's tools, the client side of catbuddy/languageFeature
-- (docs/PROTOCOL.md). The plugin lists the methods it answers in
-- experimental.catbuddy.languageFeatures; cb-ls asks with {method, params}
-- and gets that method's LSP result, asked of every other client attached
-- to the document (gopls, lua_ls, …, never cb-ls itself) and merged: lists
-- concatenated, single answers the first that says something, workspace
-- edits joined.
local compat = require('catbuddy.compat')

local M = {}

--- methods are the LSP methods answered, each with the server capability
--- that says a client can answer it.
M.capability = {
  ['textDocument/definition'] = 'definitionProvider',
  ['textDocument/typeDefinition'] = 'typeDefinitionProvider',
  ['textDocument/implementation'] = 'implementationProvider',
  ['textDocument/references'] = 'referencesProvider',
  ['textDocument/hover'] = 'hoverProvider',
  ['textDocument/documentSymbol'] = 'documentSymbolProvider',
  ['workspace/symbol'] = 'workspaceSymbolProvider',
  ['textDocument/prepareCallHierarchy'] = 'callHierarchyProvider',
  ['callHierarchy/incomingCalls'] = 'callHierarchyProvider',
  ['callHierarchy/outgoingCalls'] = 'callHierarchyProvider',
  ['textDocument/prepareRename'] = 'renameProvider',
  ['textDocument/rename'] = 'renameProvider',
  ['textDocument/codeAction'] = 'codeActionProvider',
  ['textDocument/formatting'] = 'documentFormattingProvider',
}

M.methods = {
  'textDocument/definition',
  'textDocument/typeDefinition',
  'textDocument/implementation',
  'textDocument/references',
  'textDocument/hover',
  'textDocument/documentSymbol',
  'workspace/symbol',
  'textDocument/prepareCallHierarchy',
  'callHierarchy/incomingCalls',
  'callHierarchy/outgoingCalls',
  'textDocument/prepareRename',
  'textDocument/rename',
  'textDocument/codeAction',
  'textDocument/formatting',
}

--- timeout_ms bounds the wait for the other servers; cb-ls has its own,
--- shorter or not, and reports a timeout to the model either way.
M.timeout_ms = 15000

--- resolve_max bounds the code actions resolved for their edits.
M.resolve_max = 25

local INVALID_PARAMS = -32602
local INTERNAL = -32603

local function bad(msg)
  return { code = INVALID_PARAMS, message = 'catbuddy/languageFeature: ' .. msg }
end

local function supports(client, method)
  local caps = client.server_capabilities or {}
  local v = caps[M.capability[method]]
  if v == nil or v == false then
    return false
  end
  if method == 'textDocument/prepareRename' then
    return type(v) == 'table' and v.prepareProvider == true
  end
  return true
end

-- others lists the running clients other than cb-ls's, in id order.
local function others(filter)
  local out = {}
  for _, c in ipairs(compat.get_clients(filter)) do
    if c.name ~= 'catbuddy' and not compat.is_stopped(c) then
      out[#out + 1] = c
    end
  end
  return out
end

local function buffers_of(client)
  if client.attached_buffers then
    return vim.tbl_keys(client.attached_buffers)
  end
  return vim.lsp.get_buffers_by_client_id(client.id)
end

local function under(path, root)
  return type(root) == 'string' and root ~= '' and (path == root or path:sub(1, #root + 1) == root .. '/')
end

--- buffer returns the loaded buffer of uri and the clients attached to it.
-- A file the agent read but the user never opened is loaded, and the
-- servers already serving files of its filetype in its project are
-- attached to it (as the user's setup would on opening it), so that they
-- know it.
local function buffer(uri)
  local bufnr = vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    vim.fn.bufload(bufnr)
  end
  local clients = others({ bufnr = bufnr })
  if #clients > 0 then
    return bufnr, clients
  end
  if vim.api.nvim_buf_get_option(bufnr, 'filetype') == '' then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd('silent! filetype detect')
    end)
  end
  local ft = vim.api.nvim_buf_get_option(bufnr, 'filetype')
  local path = vim.api.nvim_buf_get_name(bufnr)
  for _, c in ipairs(others()) do
    local serves = false
    for _, b in ipairs(buffers_of(c)) do
      if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_option(b, 'filetype') == ft then
        serves = true
      end
    end
    if ft ~= '' and serves and under(path, c.config and c.config.root_dir) then
      vim.lsp.buf_attach_client(bufnr, c.id)
    end
  end
  return bufnr, others({ bufnr = bufnr })
end

M.buffer = buffer

--- supports reports whether client's server answers method.
M.supports = supports

-- wait_for returns once done() holds or after ms: yielding when Neovim
-- runs this handler in a coroutine (0.10+), with vim.wait otherwise
-- (0.7, where server-request handlers run on the main loop).
local function wait_for(ms, done)
  if compat.can_yield() then
    local co = coroutine.running()
    local deadline = compat.uv.now() + ms
    local function poll()
      if done() or compat.uv.now() >= deadline then
        coroutine.resume(co)
      else
        vim.defer_fn(poll, 10)
      end
    end
    vim.defer_fn(poll, 0)
    coroutine.yield()
  else
    vim.wait(ms, done, 10)
  end
end

-- ask sends method to each client and returns their answers in client
-- order: {client, result, err}, and the clients that did not answer in time.
local function ask(clients, method, params_for, bufnr)
  local answers, pending = {}, 0
  for i, c in ipairs(clients) do
    pending = pending + 1
    local ok = compat.request(c, method, params_for(c), function(err, result)
      if answers[i] == nil then
        answers[i] = { client = c, result = result, err = err }
        pending = pending - 1
      end
    end, bufnr)
    if not ok then
      answers[i] = { client = c, err = { message = c.name .. ' did not take the request' } }
      pending = pending - 1
    end
  end
  wait_for(M.timeout_ms, function()
    return pending == 0
  end)
  local out, late = {}, {}
  for i, c in ipairs(clients) do
    if answers[i] then
      out[#out + 1] = answers[i]
    else
      answers[i] = false -- an answer after the deadline is dropped
      late[#late + 1] = c.name
    end
  end
  return out, late
end

local function present(v)
  return v ~= nil and v ~= vim.NIL
end

--- merge_edits joins workspace edits: their changes maps (per document,
--- edits concatenated) and their documentChanges lists.
function M.merge_edits(edits)
  local out
  for _, e in ipairs(edits) do
    out = out or {}
    if type(e.changes) == 'table' then
      out.changes = out.changes or {}
      for uri, list in pairs(e.changes) do
        out.changes[uri] = out.changes[uri] or {}
        vim.list_extend(out.changes[uri], list)
      end
    end
    if type(e.documentChanges) == 'table' then
      out.documentChanges = out.documentChanges or {}
      vim.list_extend(out.documentChanges, e.documentChanges)
    end
    if type(e.changeAnnotations) == 'table' then
      out.changeAnnotations = vim.tbl_extend('keep', out.changeAnnotations or {}, e.changeAnnotations)
    end
  end
  if out and out.changes and out.documentChanges then
    -- A reader of documentChanges ignores changes (LSP): one server's
    -- changes map joins the other's list, as unversioned document edits.
    local uris = vim.tbl_keys(out.changes)
    table.sort(uris)
    for _, uri in ipairs(uris) do
      table.insert(out.documentChanges, { textDocument = { uri = uri, version = vim.NIL }, edits = out.changes[uri] })
    end
    out.changes = nil
  end
  return out
end

-- kinds of merge, by method.
local single = { ['textDocument/hover'] = true, ['textDocument/prepareRename'] = true, ['textDocument/formatting'] = true }

--- merge combines the answers ({result}) of several servers for method:
--- lists are concatenated, a single Location counts as a list of one;
--- hover, prepareRename and formatting take the first answer that says
--- something (two formatters' edits cannot both apply); rename's workspace
--- edits are joined. nil when no server said anything.
function M.merge(method, results)
  if method == 'textDocument/rename' then
    local edits = {}
    for _, r in ipairs(results) do
      if type(r) == 'table' then
        edits[#edits + 1] = r
      end
    end
    return M.merge_edits(edits)
  end
  if single[method] then
    for _, r in ipairs(results) do
      if present(r) and not (type(r) == 'table' and vim.tbl_isempty(r)) then
        return r
      end
    end
    return nil
  end
  local out, any = {}, false
  for _, r in ipairs(results) do
    if type(r) == 'table' then
      any = true
      if r.uri or r.targetUri then
        out[#out + 1] = r -- a single Location (or LocationLink)
      else
        vim.list_extend(out, r)
      end
    end
  end
  return any and out or nil
end

-- Call hierarchy items go back to the server that made them: their data
-- is wrapped with that server's id, and unwrapped for it.
local function wrap_item(item, client_id)
  if type(item) ~= 'table' then
    return item
  end
  local w = vim.deepcopy(item)
  w.data = { catbuddyClient = client_id, data = item.data }
  return w
end

local function unwrap_item(item)
  if type(item) ~= 'table' or type(item.data) ~= 'table' or type(item.data.catbuddyClient) ~= 'number' then
    return nil
  end
  local u = vim.deepcopy(item)
  u.data = item.data.data
  return u, item.data.catbuddyClient
end

local function wrap_calls(list, client_id, field)
  for _, call in ipairs(type(list) == 'table' and list or {}) do
    call[field] = wrap_item(call[field], client_id)
  end
  return list
end

-- resolve fills in the edits of code actions their server computes lazily
-- (codeAction/resolve), as VS Code does before it shows a preview.
local function resolve_actions(answers)
  local n = 0
  for _, a in ipairs(answers) do
    local caps = a.client.server_capabilities or {}
    local can = type(caps.codeActionProvider) == 'table' and caps.codeActionProvider.resolveProvider
    if can and type(a.result) == 'table' then
      for i, action in ipairs(a.result) do
        if n < M.resolve_max and type(action) == 'table' and action.title and action.edit == nil and type(action.command) ~= 'string' then
          n = n + 1
          local got = ask({ a.client }, 'codeAction/resolve', function()
            return action
          end)
          if got[1] and not got[1].err and type(got[1].result) == 'table' then
            a.result[i] = got[1].result
          end
        end
      end
    end
  end
end

local function errors_of(answers)
  local msgs = {}
  for _, a in ipairs(answers) do
    if a.err then
      msgs[#msgs + 1] = string.format('%s: %s', a.client.name, a.err.message or vim.inspect(a.err))
    end
  end
  return msgs
end

--- answer returns the merged result of request.method, or nil and an
--- error; the shape of a server-request handler's return.
function M.answer(request)
  if type(request) ~= 'table' or type(request.method) ~= 'string' then
    return nil, bad('missing method')
  end
  local method, params = request.method, request.params
  if not M.capability[method] then
    return nil, bad(string.format('unsupported method %q (this client answers %s)', method, table.concat(M.methods, ', ')))
  end
  if type(params) ~= 'table' then
    return nil, bad('missing params')
  end
  local clients, bufnr
  local params_for = function()
    return params
  end
  if method == 'workspace/symbol' then
    clients = others()
  elseif method == 'callHierarchy/incomingCalls' or method == 'callHierarchy/outgoingCalls' then
    local item, id = unwrap_item(params.item)
    local c = id and vim.lsp.get_client_by_id(id)
    if not c or compat.is_stopped(c) then
      return nil, bad('unknown call hierarchy item: ask textDocument/prepareCallHierarchy for it again')
    end
    clients = { c }
    params_for = function()
      return vim.tbl_extend('force', params, { item = item })
    end
  else
    local uri = params.textDocument and params.textDocument.uri
    if type(uri) ~= 'string' then
      return nil, bad('missing textDocument.uri')
    end
    bufnr, clients = buffer(uri)
  end
  local able = {}
  for _, c in ipairs(clients) do
    -- The positions cb-ls sends and expects are UTF-16, the encoding it
    -- negotiated; a server speaking another one would misplace them.
    if supports(c, method) and (c.offset_encoding or 'utf-16') == 'utf-16' then
      able[#able + 1] = c
    end
  end
  if method == 'textDocument/prepareRename' and #able == 0 then
    -- Servers that rename without a prepare step: the client may rename
    -- anywhere they are asked (LSP's defaultBehavior answer).
    for _, c in ipairs(clients) do
      if supports(c, 'textDocument/rename') then
        return { defaultBehavior = true }
      end
    end
  end
  if #able == 0 then
    return vim.NIL
  end
  local answers, late = ask(able, method, params_for, bufnr)
  if method == 'textDocument/codeAction' then
    resolve_actions(answers)
  end
  local results = {}
  for _, a in ipairs(answers) do
    if not a.err then
      local r = a.result
      if method == 'textDocument/prepareCallHierarchy' and type(r) == 'table' then
        r = vim.tbl_map(function(it)
          return wrap_item(it, a.client.id)
        end, r)
      elseif method == 'callHierarchy/incomingCalls' then
        r = wrap_calls(r, a.client.id, 'from')
      elseif method == 'callHierarchy/outgoingCalls' then
        r = wrap_calls(r, a.client.id, 'to')
      end
      results[#results + 1] = r
    end
  end
  local merged = M.merge(method, results)
  if merged ~= nil then
    return merged
  end
  local errs = errors_of(answers)
  if #errs > 0 then
    return nil, { code = INTERNAL, message = table.concat(errs, '; ') }
  end
  if #late > 0 then
    return nil, { code = INTERNAL, message = string.format('%s did not answer %s within %d ms', table.concat(late, ', '), method, M.timeout_ms) }
  end
  return vim.NIL
end

return M

-- After a write command ran, the buffers of the files it changed follow
-- the disk: an unmodified buffer is reloaded (and the server reads the new
-- text from it), a buffer with unsaved typing keeps it and the user is
-- told, and a deleted file's buffer is named.
local E = require('e2e.env')

return function(H)
  H.test('e2e: files_changed reloads unmodified buffers, keeps typing and names deleted files', function()
    local command = "printf 'fresh\\n' > notes.txt && echo '// by the command' >> calc.go && rm old.txt"
    local model = E.model(H, {
      { tool_calls = { { name = 'exec', args = { command = command, write = true, reason = 'refresh the notes' } } } },
      { text = 'done' },
    })
    local orig_select = vim.ui.select
    vim.ui.select = function(items, _, on_choice)
      for _, a in ipairs(items) do
        if a.title == 'Run' then
          return on_choice(a)
        end
      end
      on_choice(nil)
    end
    local got, restore_notify = H.capture_notify()
    local ok, e = pcall(function()
      local dir, path = E.project(H)
      H.write(dir .. '/notes.txt', { 'stale' })
      H.write(dir .. '/old.txt', { 'old' })
      E.setup(H, model, {})
      vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/notes.txt'))
      local notes = vim.api.nvim_get_current_buf()
      vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/old.txt'))
      local old = vim.api.nvim_get_current_buf()
      local calc, client = E.open(H, path)
      vim.api.nvim_buf_set_lines(calc, 0, 1, false, { 'package calc // typed' })
      local run = E.wait_run(H, function(cb)
        require('catbuddy').fix({ line1 = 5, line2 = 5, range = 1 }, cb)
      end)
      H.eq('done', run.outcome, 'outcome (' .. tostring(run.error) .. ')')
      H.eq({ 'fresh' }, vim.fn.readfile(dir .. '/notes.txt'), 'the command ran')
      H.wait(10000, function()
        return vim.api.nvim_buf_get_lines(notes, 0, -1, false)[1] == 'fresh'
      end, 'the unmodified notes.txt buffer to be reloaded')
      H.eq(false, vim.bo[notes].modified, 'notes.txt is not modified after the reload')
      H.eq('package calc // typed', vim.api.nvim_buf_get_lines(calc, 0, 1, false)[1], 'the typing in calc.go is kept')
      H.eq(true, vim.bo[calc].modified, 'calc.go still has unsaved changes')
      H.eq({ 'old' }, vim.api.nvim_buf_get_lines(old, 0, -1, false), 'the deleted file keeps its buffer')
      local msgs = {}
      for _, n in ipairs(got) do
        msgs[#msgs + 1] = tostring(n.msg)
      end
      local all = table.concat(msgs, '\n')
      H.contains(all, 'changed calc.go on disk; your unsaved changes are kept', 'the user is told about calc.go')
      H.contains(all, 'deleted old.txt', 'the user is told about old.txt')
      -- The server reads the reloaded buffer, not the text before the command.
      local res = require('catbuddy.compat').request_sync(client, 'workspace/executeCommand',
        { command = 'catbuddy.runTool', arguments = { { name = 'read_file', arguments = { path = 'notes.txt' } } } }, 10000, calc)
      H.truthy(res and res.result, 'runTool answered: ' .. vim.inspect(res))
      H.contains(res.result.output, 'fresh', 'the server has the reloaded notes.txt')
      H.truthy(not res.result.output:find('stale', 1, true), 'the server no longer has the old notes.txt')
    end)
    vim.ui.select = orig_select
    restore_notify()
    E.teardown(model)
    assert(ok, e)
  end)
end

local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')

return function(H)
  H.test('help: doc/catbuddy.txt builds tags without duplicates', function()
    local d = H.tmpdir()
    vim.fn.writefile(vim.fn.readfile(here .. '/../../doc/catbuddy.txt'), d .. '/catbuddy.txt')
    vim.cmd('helptags ' .. vim.fn.fnameescape(d))
    local tags = table.concat(vim.fn.readfile(d .. '/tags'), '\n')
    for _, t in ipairs({ 'catbuddy', 'catbuddy.setup()', 'catbuddy-review', ':CatbuddyFix', ':CatbuddyRun', 'catbuddy-health' }) do
      H.contains(tags, t .. '\tcatbuddy.txt', 'tag ' .. t)
    end
  end)
end

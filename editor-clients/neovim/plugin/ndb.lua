-- ndb for Neovim: the `:Ndb` command and what happens when `ndb lsp`
-- attaches to a buffer (inlay hints on, code lenses, breakpoint signs,
-- nvim-dap mirroring). The server itself is started by
-- `vim.lsp.enable('ndb')` with the config in lsp/ndb.lua.

if vim.g.loaded_ndb then
  return
end
vim.g.loaded_ndb = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify('ndb: the plugin needs Neovim 0.11 or newer', vim.log.levels.WARN)
  return
end

vim.api.nvim_create_user_command('Ndb', function(command)
  require('ndb').command(command.args)
end, {
  nargs = '+',
  desc = 'ndb: neural debugger operations (:Ndb breakpoint, predict, entry, suggest, insert, check, clear)',
  complete = function(lead, line)
    if line:match('^%s*Ndb!?%s+%S*$') then
      return vim.tbl_filter(function(name)
        return vim.startswith(name, lead)
      end, require('ndb').subcommand_names())
    end
    return {}
  end,
})

vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('ndb_attach', { clear = true }),
  callback = function(event)
    local client = vim.lsp.get_client_by_id(event.data.client_id)
    if client and client.name == require('ndb').name then
      require('ndb').on_attach(client, event.buf)
    end
  end,
})

-- ndb lsp, the neural debugger's language server, for `vim.lsp.config` and
-- `vim.lsp.enable('ndb')` (Neovim 0.11+). Override any field with
-- `vim.lsp.config('ndb', { ... })`; the settings are those of docs/lsp.md.

---@type vim.lsp.Config
return {
  cmd = { 'ndb', 'lsp' },
  filetypes = { 'python' },
  root_markers = {
    'pyproject.toml',
    'setup.py',
    'setup.cfg',
    'requirements.txt',
    'Pipfile',
    'pyrightconfig.json',
    '.git',
  },
  settings = {
    neuralDebugger = vim.empty_dict(),
  },
  -- The server reads `samples` and `modelPath` when it starts, from the
  -- initialization options; hand it the same settings there.
  before_init = function(params, config)
    local settings = (config.settings or {}).neuralDebugger or vim.empty_dict()
    params.initializationOptions = vim.tbl_deep_extend(
      'force',
      type(params.initializationOptions) == 'table' and params.initializationOptions or {},
      { neuralDebugger = settings }
    )
  end,
}

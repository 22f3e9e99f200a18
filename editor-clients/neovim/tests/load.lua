-- Loads every Lua file of the plugin and checks the parts that need no
-- server (run by tests/editors.rs):
--
--   nvim --headless -u NONE -i NONE -n -l editor-clients/neovim/tests/load.lua
--
-- Prints the :Ndb subcommands (the docs are compared with them) and exits
-- non-zero on a failure.

local script = debug.getinfo(1, 'S').source:sub(2)
local plugin = vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(script, ':p'))))
vim.opt.runtimepath:prepend(plugin)

local failures = {}
local function expect(name, ok, detail)
  if not ok then
    table.insert(failures, name .. (detail and (': ' .. detail) or ''))
  end
end

-- Every file compiles.
local files = vim.fs.find(function(name)
  return name:match('%.lua$') ~= nil
end, { path = plugin, type = 'file', limit = math.huge })
expect('Lua files were found', #files >= 5, vim.inspect(files))
for _, file in ipairs(files) do
  local chunk, err = loadfile(file)
  expect('compiles: ' .. file, chunk ~= nil, err)
end

-- lsp/ndb.lua is a config vim.lsp.config accepts.
local config = dofile(plugin .. '/lsp/ndb.lua')
expect('cmd is ndb lsp', vim.deep_equal(config.cmd, { 'ndb', 'lsp' }), vim.inspect(config.cmd))
expect('filetypes are python', vim.deep_equal(config.filetypes, { 'python' }))
expect('root markers include pyproject.toml', vim.tbl_contains(config.root_markers, 'pyproject.toml'))
local params = {}
config.before_init(params, { settings = { neuralDebugger = { samples = 4 } } })
expect(
  'the settings are also the initialization options',
  vim.deep_equal(params.initializationOptions, { neuralDebugger = { samples = 4 } }),
  vim.inspect(params)
)
expect(
  'empty settings are sent as a JSON object',
  vim.json.encode(config.settings) == '{"neuralDebugger":{}}',
  vim.json.encode(config.settings)
)
vim.lsp.config('ndb', { cmd = { 'ndb', 'lsp', '--samples', '2' } })
expect('vim.lsp.config merges over lsp/ndb.lua', vim.deep_equal(vim.lsp.config.ndb.filetypes, { 'python' }))

-- The plugin defines :Ndb.
vim.cmd('runtime plugin/ndb.lua')
expect(':Ndb exists', vim.fn.exists(':Ndb') == 2)

-- The nvim-dap mirror sends only what changed, and [] for a cleared file.
local dap = require('ndb.dap')
local a, b = 'file:///p/a.py', 'file:///p/b.py'
expect('first sync sends every document', vim.deep_equal(dap.diff({}, { [a] = { 3 }, [b] = { 1, 7 } }), {
  { uri = a, lines = { 3 } },
  { uri = b, lines = { 1, 7 } },
}))
expect('only the changed document', vim.deep_equal(dap.diff({ [a] = { 3 }, [b] = { 1 } }, { [a] = { 3 }, [b] = { 1, 2 } }), {
  { uri = b, lines = { 1, 2 } },
}))
expect('a document without breakpoints gets []', vim.deep_equal(dap.diff({ [a] = { 3 } }, {}), { { uri = a, lines = {} } }))
expect('without nvim-dap nothing is collected', dap.collect() == nil)

-- Answers become sentences.
local ndb = require('ndb')
expect('toggle sentence', ndb.describe('ndb.toggleBreakpoint', { lines = { 11, 14 } }) == 'neural breakpoints on lines 12, 15')
expect(
  'predict sentence',
  ndb.describe('ndb.predict', { entryCall = 'f(1)', value = '2', raised = false, predicted = true, confidence = { value = 0.304, verdict = 'guess', votes = 1, samples = 1 } })
    == 'f(1) ≈ returns 2, confidence 30% (a guess), nothing was run'
)

print('subcommands: ' .. table.concat(ndb.subcommand_names(), ' '))
if #failures > 0 then
  print('FAILED\n' .. table.concat(failures, '\n'))
  os.exit(1)
end
print('neovim load: ok')

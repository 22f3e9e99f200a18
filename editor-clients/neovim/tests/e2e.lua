-- End-to-end test of the Neovim plugin against the real `ndb lsp`:
--
--   nvim --headless -u NONE -i NONE -n -l editor-clients/neovim/tests/e2e.lua [NDB_BIN]
--
-- (run by tests/editors.rs with the freshly built binary). It loads the
-- plugin from this folder as a user's config would, opens a copy of
-- examples/lsp_weighted_sum.py with the tracer engine (real values, no
-- model needed, deterministic), and drives the `:Ndb` commands: a neural
-- breakpoint set through the server command brings an inlay hint with the
-- real locals, lenses arrive, predict answers the return value, clearing
-- removes the hint, and a (stand-in) nvim-dap breakpoint is mirrored into
-- the server. Prints one line per check and exits non-zero on a failure.

local script = debug.getinfo(1, 'S').source:sub(2)
local plugin = vim.fs.dirname(vim.fs.dirname(vim.fs.normalize(vim.fn.fnamemodify(script, ':p'))))
local repository = vim.fs.dirname(vim.fs.dirname(plugin))
local ndb = _G.arg[1] or (repository .. '/target/debug/ndb')
local timeout = tonumber(vim.env.NDB_NVIM_TEST_TIMEOUT or '') or 60000

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    print('ok     ' .. name)
  else
    failed = failed + 1
    print('FAILED ' .. name .. (detail and (': ' .. detail) or ''))
  end
end
local function finish()
  print(string.format('neovim e2e: %d passed, %d failed', passed, failed))
  os.exit(failed == 0 and 0 or 1)
end
local function fatal(message)
  check(message, false)
  finish()
end

if vim.fn.has('nvim-0.11') == 0 then
  fatal('Neovim 0.11 or newer is needed, this is ' .. tostring(vim.version()))
end
if vim.fn.executable(ndb) == 0 then
  fatal('the ndb binary is not executable: ' .. ndb)
end

-- A stand-in for nvim-dap: its breakpoint functions keep signs in a table
-- the way `require('dap.breakpoints').get()` reports them.
local dap_lines = {}
package.preload['dap.breakpoints'] = function()
  return {
    get = function()
      local result = {}
      for bufnr, lines in pairs(dap_lines) do
        result[bufnr] = {}
        for line in pairs(lines) do
          table.insert(result[bufnr], { line = line })
        end
      end
      return result
    end,
  }
end
package.preload['dap'] = function()
  return {
    toggle_breakpoint = function()
      local bufnr = vim.api.nvim_get_current_buf()
      local line = vim.api.nvim_win_get_cursor(0)[1]
      dap_lines[bufnr] = dap_lines[bufnr] or {}
      dap_lines[bufnr][line] = not dap_lines[bufnr][line] or nil
    end,
    clear_breakpoints = function()
      dap_lines = {}
    end,
  }
end

-- The plugin, as a user's config loads it.
vim.opt.runtimepath:prepend(plugin)
vim.cmd('filetype on')
vim.cmd('runtime plugin/ndb.lua')
local messages = {}
vim.notify = function(message)
  table.insert(messages, message)
end

local directory = vim.fn.tempname()
vim.fn.mkdir(directory, 'p')
local file = directory .. '/lsp_weighted_sum.py'
vim.fn.writefile(vim.fn.readfile(repository .. '/examples/lsp_weighted_sum.py'), file)
vim.fn.writefile({}, directory .. '/pyproject.toml')

vim.lsp.config('ndb', {
  cmd = { ndb, 'lsp' },
  settings = { neuralDebugger = { engine = 'tracer', allowRunningCode = true } },
})
vim.lsp.enable('ndb')
vim.cmd.edit(vim.fn.fnameescape(file))
local buffer = vim.api.nvim_get_current_buf()
local ndb_plugin = require('ndb')

local attached = vim.wait(timeout, function()
  return ndb_plugin.client(buffer) ~= nil and ndb_plugin.client(buffer).initialized
end, 50)
if not attached then
  fatal('ndb lsp attached to the Python buffer (filetype ' .. vim.bo[buffer].filetype .. ')')
end
local client = ndb_plugin.client(buffer)
check('ndb lsp attached to the Python buffer', true)
check(
  'the root is the project folder',
  client.root_dir == directory or vim.fn.resolve(client.root_dir or '') == vim.fn.resolve(directory),
  tostring(client.root_dir)
)
check('inlay hints were switched on by the plugin', vim.lsp.inlay_hint.is_enabled({ bufnr = buffer }))

-- Every server command is behind a :Ndb subcommand.
local offered = (client.server_capabilities.executeCommandProvider or {}).commands or {}
local covered = {}
for _, subcommand in pairs(ndb_plugin.subcommands) do
  covered[subcommand.server] = true
end
local missing = vim.tbl_filter(function(command)
  return not covered[command]
end, offered)
check('every server command has a :Ndb subcommand', #offered >= 6 and #missing == 0, vim.inspect({ offered = offered, missing = missing }))

local lines = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
local breakpoint_line
for number, text in ipairs(lines) do
  if text:find('total = total + value * weight', 1, true) then
    breakpoint_line = number
  end
end
assert(breakpoint_line, 'the example changed: no breakpoint line')

local function label_of(hint)
  local label = hint.label
  if type(label) == 'table' then
    label = table.concat(vim.tbl_map(function(part)
      return part.value
    end, label))
  end
  return label
end

--- The settled hint labels on a 0-based line (nil while any is pending).
local function hints_on(line)
  local found = {}
  for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = buffer })) do
    local label = label_of(item.inlay_hint)
    if label:sub(-#'⋯') == '⋯' then
      return nil
    end
    if item.inlay_hint.position.line == line then
      table.insert(found, label)
    end
  end
  return found
end

local function wait_for_hint(line, prefix)
  local label
  vim.wait(timeout, function()
    for _, found in ipairs(hints_on(line) or {}) do
      if vim.startswith(found, prefix) then
        label = found
        return true
      end
    end
    return false
  end, 100)
  return label
end

-- :Ndb breakpoint on the loop body: the server's toggle command.
vim.api.nvim_win_set_cursor(0, { breakpoint_line, 0 })
vim.cmd('Ndb breakpoint')
local toggled = vim.wait(timeout, function()
  return vim.deep_equal(ndb_plugin.breakpoints[buffer], { breakpoint_line - 1 })
end, 50)
check(':Ndb breakpoint set a neural breakpoint through ndb.toggleBreakpoint', toggled, vim.inspect(ndb_plugin.breakpoints))
local signs = vim.api.nvim_buf_get_extmarks(buffer, vim.api.nvim_create_namespace('ndb_breakpoints'), 0, -1, { details = true })
check('the breakpoint is marked in the sign column', #signs == 1 and signs[1][2] == breakpoint_line - 1, vim.inspect(signs))

local label = wait_for_hint(breakpoint_line - 1, '(ran) ')
check(
  'an inlay hint with the real locals appears at the breakpoint',
  label ~= nil and label:find('values = [1, 2, 3]', 1, true) ~= nil,
  vim.inspect(vim.lsp.inlay_hint.get({ bufnr = buffer }))
)

-- Lenses above the function.
local kinds = {}
vim.wait(timeout, function()
  pcall(vim.lsp.codelens.refresh, { bufnr = buffer })
  kinds = {}
  for _, lens in ipairs(vim.lsp.codelens.get(buffer) or {}) do
    if type(lens.data) == 'table' then
      kinds[lens.data.kind] = true
    end
  end
  return kinds.predict and kinds.entryCall and kinds.checkByRunning
end, 200)
check('code lenses arrive (entry call, predict, check by running)', kinds.predict and kinds.entryCall and kinds.checkByRunning, vim.inspect(kinds))

-- :Ndb predict answers the real return value of the doctest's call.
local function wait_for_message(pattern)
  local found
  vim.wait(timeout, function()
    for _, message in ipairs(messages) do
      if message:find(pattern) then
        found = message
        return true
      end
    end
    return false
  end, 50)
  return found
end
vim.cmd('Ndb predict')
local predicted = wait_for_message('returns')
check(':Ndb predict answers the return value', predicted ~= nil and predicted:find('returns 10', 1, true) ~= nil, vim.inspect(messages))

-- :Ndb entry chooses another entry call, and predict follows it.
vim.cmd('Ndb entry weighted_sum([5], [7])')
local chosen = wait_for_message('now starts from')
check(':Ndb entry chooses the entry call', chosen ~= nil, vim.inspect(messages))
messages = {}
vim.cmd('Ndb predict')
predicted = wait_for_message('returns')
check(':Ndb predict uses the chosen entry call', predicted ~= nil and predicted:find('weighted_sum([5], [7]) (ran) returns 35', 1, true) ~= nil, vim.inspect(messages))

-- :Ndb clear: the hint at the breakpoint goes.
vim.cmd('Ndb clear')
local cleared = vim.wait(timeout, function()
  local found = hints_on(breakpoint_line - 1)
  return found ~= nil and #found == 0
end, 100)
check(':Ndb clear removes the neural breakpoint and its hint', cleared and #vim.api.nvim_buf_get_extmarks(buffer, vim.api.nvim_create_namespace('ndb_breakpoints'), 0, -1, {}) == 0)

-- An nvim-dap breakpoint is mirrored into the server.
require('dap').toggle_breakpoint()
label = wait_for_hint(breakpoint_line - 1, '(ran) ')
check('an nvim-dap breakpoint becomes a neural breakpoint', label ~= nil and label:find('values = [5]', 1, true) ~= nil, tostring(label))
require('dap').clear_breakpoints()
cleared = vim.wait(timeout, function()
  local found = hints_on(breakpoint_line - 1)
  return found ~= nil and #found == 0
end, 100)
check('clearing nvim-dap breakpoints clears them in the server', cleared)

vim.lsp.stop_client(client.id)
vim.wait(2000, function()
  return client:is_stopped()
end, 50)
vim.fn.delete(directory, 'rf')
finish()

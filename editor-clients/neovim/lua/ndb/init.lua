--- ndb for Neovim: the server's operations as `:Ndb` subcommands
--- (docs/lsp-protocol-extensions.md), run on the function under the
--- cursor, and what is switched on when `ndb lsp` attaches.
---
--- Lines are 0-based in the protocol and 1-based in Neovim's cursor; the
--- conversion happens here and nowhere else.

local M = {}

--- The client's name: the config is lsp/ndb.lua.
M.name = 'ndb'

--- What `setup()` can change.
M.options = {
  --- Switch inlay hints on in buffers ndb attaches to.
  inlay_hints = true,
  --- Ask for code lenses in those buffers (and refresh them on edits).
  code_lens = true,
  --- Mirror nvim-dap's breakpoints into ndb when nvim-dap is installed.
  mirror_dap = true,
  --- Mark neural breakpoints in the sign column.
  signs = true,
  sign_text = '◆',
}

--- Neural breakpoints per buffer, as the server last answered (0-based).
M.breakpoints = {}

local namespace = vim.api.nvim_create_namespace('ndb_breakpoints')

function M.setup(options)
  M.options = vim.tbl_deep_extend('force', M.options, options or {})
end

local function notify(message, level)
  vim.notify(message, level or vim.log.levels.INFO, { title = 'ndb' })
end

local function buffer_of(bufnr)
  if bufnr == nil or bufnr == 0 then
    return vim.api.nvim_get_current_buf()
  end
  return bufnr
end

--- The ndb client attached to a buffer (the current one by default).
function M.client(bufnr)
  return vim.lsp.get_clients({ bufnr = buffer_of(bufnr), name = M.name })[1]
end

--- Runs a server command with its one argument; `on_result(result)` gets
--- the answer, errors are shown.
function M.execute(command, argument, on_result, bufnr)
  bufnr = buffer_of(bufnr)
  local client = M.client(bufnr)
  if not client then
    notify('ndb lsp is not attached to this buffer (vim.lsp.enable("ndb"), see :checkhealth vim.lsp)', vim.log.levels.ERROR)
    return
  end
  client:request('workspace/executeCommand', { command = command, arguments = { argument } }, function(err, result)
    if err then
      notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, bufnr)
end

--- The document and the cursor's 0-based line.
local function here(bufnr)
  bufnr = buffer_of(bufnr)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  if vim.api.nvim_get_current_buf() ~= bufnr then
    line = 0
  end
  return { uri = vim.uri_from_bufnr(bufnr), line = line }, bufnr
end

--- Marks the neural breakpoints of a buffer in the sign column.
function M.show_breakpoints(bufnr, lines)
  bufnr = buffer_of(bufnr)
  M.breakpoints[bufnr] = lines
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, namespace, 0, -1)
  if not M.options.signs then
    return
  end
  local count = vim.api.nvim_buf_line_count(bufnr)
  for _, line in ipairs(lines) do
    if line < count then
      vim.api.nvim_buf_set_extmark(bufnr, namespace, line, 0, {
        sign_text = M.options.sign_text,
        sign_hl_group = 'DiagnosticSignInfo',
      })
    end
  end
end

local function lines_text(lines)
  local shown = {}
  for _, line in ipairs(lines) do
    shown[#shown + 1] = tostring(line + 1)
  end
  return table.concat(shown, ', ')
end

--- Replaces the buffer's neural breakpoints (0-based lines) with
--- `ndb/setBreakpoints`.
function M.set_breakpoints(bufnr, lines)
  bufnr = buffer_of(bufnr)
  local client = M.client(bufnr)
  if not client then
    notify('ndb lsp is not attached to this buffer', vim.log.levels.ERROR)
    return
  end
  client:notify('ndb/setBreakpoints', { uri = vim.uri_from_bufnr(bufnr), lines = lines })
  M.show_breakpoints(bufnr, lines)
end

--- The sentence an answer becomes (nil when the server already said it).
function M.describe(command, result)
  if type(result) ~= 'table' then
    return nil
  end
  if command == 'ndb.toggleBreakpoint' then
    if #result.lines == 0 then
      return 'no neural breakpoints in this buffer'
    end
    return 'neural breakpoints on lines ' .. lines_text(result.lines)
  elseif command == 'ndb.chooseEntryCall' then
    if type(result.entryCall) == 'string' then
      return result['function'] .. ' now starts from ' .. result.entryCall
    end
    return nil
  elseif command == 'ndb.predict' then
    local call = tostring(result.entryCall or '')
    if type(result.error) == 'string' then
      return 'no prediction for ' .. call .. ': ' .. result.error
    end
    local value = result.value
    if value == nil or value == vim.NIL then
      value = 'None'
    end
    local verb = result.raised and 'raises' or 'returns'
    if result.predicted == false then
      return call .. ' (ran) ' .. verb .. ' ' .. value .. ', the code was run'
    end
    local agree = ''
    if type(result.confidence) == 'table' and type(result.confidence.value) == 'number' then
      local verdict = result.confidence.verdict == 'guess' and 'a guess' or 'likely'
      agree = string.format(', confidence %d%% (%s)', math.floor(result.confidence.value * 100 + 0.5), verdict)
    end
    return call .. ' ≈ ' .. verb .. ' ' .. value .. agree .. ', nothing was run'
  elseif command == 'ndb.suggestInputs' then
    if type(result.inserted) == 'table' then
      return nil
    end
    local lines = {}
    for rank, suggestion in ipairs(result.suggestions or {}) do
      lines[#lines + 1] = string.format(
        '%d. %s   (%d/%d agree%s)',
        rank,
        suggestion.entryCall,
        suggestion.votes,
        suggestion.samples,
        suggestion.verified == true and ', verified by running' or suggestion.verified == false and ', refuted by running' or ''
      )
    end
    if #lines == 0 then
      return 'no inputs proposed for ' .. tostring(result['function'])
    end
    return 'inputs for ' .. tostring(result['function']) .. ' (:Ndb insert ARGS to write one in):\n' .. table.concat(lines, '\n')
  elseif command == 'ndb.insertSuggestion' then
    if result.applied == false then
      return 'the edit was not applied'
    end
    return 'inserted ' .. tostring(result.entryCall) .. ' as a ' .. tostring(result.style)
  end
  return nil
end

local function run(command, extra, after)
  local argument, bufnr = here()
  for key, value in pairs(extra or {}) do
    argument[key] = value
  end
  M.execute(command, argument, function(result)
    local sentence = M.describe(command, result)
    if sentence then
      notify(sentence)
    end
    if after then
      after(result, bufnr)
    end
  end, bufnr)
end

--- The `:Ndb` subcommands: name → { server command, usage, run(rest) }.
M.subcommands = {
  breakpoint = {
    server = 'ndb.toggleBreakpoint',
    usage = 'toggle a neural breakpoint on the cursor line',
    run = function()
      run('ndb.toggleBreakpoint', nil, function(result, bufnr)
        M.show_breakpoints(bufnr, result.lines)
      end)
    end,
  },
  clear = {
    server = 'ndb/setBreakpoints',
    usage = "clear this buffer's neural breakpoints",
    run = function()
      M.set_breakpoints(0, {})
    end,
  },
  entry = {
    server = 'ndb.chooseEntryCall',
    usage = 'choose the entry call of the function (:Ndb entry f(1, 2), or pick one)',
    run = function(rest)
      run('ndb.chooseEntryCall', rest ~= '' and { entryCall = rest } or nil)
    end,
  },
  predict = {
    server = 'ndb.predict',
    usage = "predict the function's return value",
    run = function()
      run('ndb.predict')
    end,
  },
  suggest = {
    server = 'ndb.suggestInputs',
    usage = 'suggest inputs for the function (:Ndb suggest [OUTPUT])',
    run = function(rest)
      run('ndb.suggestInputs', rest ~= '' and { output = rest } or nil)
    end,
  },
  insert = {
    server = 'ndb.insertSuggestion',
    usage = 'write a call in as a test (:Ndb insert ARGS, style from neuralDebugger.suggestions.insertAs)',
    run = function(rest)
      if rest == '' then
        notify('usage: :Ndb insert ARGS   (the arguments of the call, e.g. [1, 2], 3)', vim.log.levels.ERROR)
        return
      end
      run('ndb.insertSuggestion', { input = rest })
    end,
  },
  check = {
    server = 'ndb.checkByRunning',
    usage = 'run the entry call and compare with the prediction (needs allowRunningCode)',
    run = function()
      run('ndb.checkByRunning')
    end,
  },
}

function M.subcommand_names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

--- `:Ndb {subcommand} [rest]`.
function M.command(args)
  local name, rest = args:match('^%s*(%S+)%s*(.-)%s*$')
  local subcommand = name and M.subcommands[name]
  if not subcommand then
    local usage = {}
    for _, known in ipairs(M.subcommand_names()) do
      usage[#usage + 1] = string.format('  :Ndb %-10s %s', known, M.subcommands[known].usage)
    end
    notify('unknown subcommand ' .. tostring(name) .. '\n' .. table.concat(usage, '\n'), vim.log.levels.ERROR)
    return
  end
  subcommand.run(rest or '')
end

--- Called on `LspAttach` for the ndb client.
function M.on_attach(client, bufnr)
  if M.options.inlay_hints and client:supports_method('textDocument/inlayHint') then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
  if M.options.code_lens and client:supports_method('textDocument/codeLens') then
    if vim.lsp.codelens.enable then
      pcall(vim.lsp.codelens.enable, true, { bufnr = bufnr })
    end
    pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
      group = vim.api.nvim_create_augroup('ndb_codelens_' .. bufnr, { clear = true }),
      buffer = bufnr,
      callback = function()
        pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
      end,
    })
  end
  if M.options.mirror_dap then
    require('ndb.dap').attach(client, bufnr)
  end
end

return M

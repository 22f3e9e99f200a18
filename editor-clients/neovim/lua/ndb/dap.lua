--- Mirrors nvim-dap's breakpoints into ndb (`ndb/setBreakpoints`), so the
--- breakpoints you set for debugging are also neural breakpoints. Does
--- nothing when nvim-dap is not installed.
---
--- nvim-dap has no event for changed breakpoints, so its breakpoint
--- functions are wrapped (each change is sent right away) and the set is
--- compared again on BufEnter, BufWritePost and CursorHold (for changes
--- made some other way). Only documents whose set changed are sent.

local M = {}

--- What was last sent, per document: uri → sorted 0-based lines.
M.sent = {}

local wrapped = false

--- The notifications that bring the server from `previous` to `current`
--- (both uri → sorted lines): one per changed document, `{}` for a
--- document whose last breakpoint went. Sorted by uri.
function M.diff(previous, current)
  local changes = {}
  for uri, lines in pairs(current) do
    if not vim.deep_equal(previous[uri], lines) then
      changes[#changes + 1] = { uri = uri, lines = lines }
    end
  end
  for uri in pairs(previous) do
    if current[uri] == nil then
      changes[#changes + 1] = { uri = uri, lines = {} }
    end
  end
  table.sort(changes, function(a, b)
    return a.uri < b.uri
  end)
  return changes
end

--- nvim-dap's breakpoints in Python buffers: uri → sorted 0-based lines;
--- nil without nvim-dap.
function M.collect()
  local ok, breakpoints = pcall(require, 'dap.breakpoints')
  if not ok or type(breakpoints) ~= 'table' or type(breakpoints.get) ~= 'function' then
    return nil
  end
  local current = {}
  for bufnr, list in pairs(breakpoints.get() or {}) do
    if vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].filetype == 'python' then
      local seen, lines = {}, {}
      for _, breakpoint in ipairs(list) do
        local line = breakpoint.line - 1
        if not seen[line] then
          seen[line] = true
          lines[#lines + 1] = line
        end
      end
      table.sort(lines)
      if #lines > 0 then
        current[vim.uri_from_bufnr(bufnr)] = lines
      end
    end
  end
  return current
end

--- Sends what changed since the last call to every ndb client.
function M.sync()
  local current = M.collect()
  if current == nil then
    return
  end
  local clients = vim.lsp.get_clients({ name = require('ndb').name })
  if #clients == 0 then
    return
  end
  for _, change in ipairs(M.diff(M.sent, current)) do
    for _, client in ipairs(clients) do
      client:notify('ndb/setBreakpoints', change)
    end
    -- nvim-dap draws its own signs; only remember the lines.
    require('ndb').breakpoints[vim.uri_to_bufnr(change.uri)] = change.lines
  end
  M.sent = current
end

local function wrap(dap, name)
  local original = dap[name]
  if type(original) ~= 'function' then
    return
  end
  dap[name] = function(...)
    local results = { original(...) }
    vim.schedule(M.sync)
    return unpack(results)
  end
end

--- Starts mirroring (once nvim-dap is loadable) for a new ndb client.
function M.attach(_, bufnr)
  local ok, dap = pcall(require, 'dap')
  if not ok or type(dap) ~= 'table' then
    return
  end
  if not wrapped then
    wrapped = true
    for _, name in ipairs({ 'toggle_breakpoint', 'set_breakpoint', 'clear_breakpoints' }) do
      wrap(dap, name)
    end
    vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost', 'CursorHold' }, {
      group = vim.api.nvim_create_augroup('ndb_dap_mirror', { clear = true }),
      pattern = { '*.py', '*.pyi' },
      callback = function()
        M.sync()
      end,
    })
  end
  -- A new server knows none of them: send every document again.
  M.sent = {}
  vim.schedule(M.sync)
  return bufnr
end

return M

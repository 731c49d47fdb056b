-- ffind for Neovim: the picker (`ffind -i`) in a floating terminal, the picks edited
-- (several go to the quickfix list), and the buffers entered recorded with
-- `ffind --remember FILE` when the installed ffind has it.
local M = {}

M.config = {
  cmd = "ffind", -- the ffind executable
  args = {}, -- extra arguments for every run, e.g. { "-e", "*.min.js" }
  width = 0.9, -- the floating window's size: a fraction of the editor, or columns/lines
  height = 0.8,
  border = "rounded",
  remember = "auto", -- record entered buffers: "auto" (when ffind has --remember), true, false
  open_quickfix = true, -- open the quickfix window after several picks
}

-- Whether the installed ffind has --remember: nil = not known yet, "checking", true, false.
local state = { remember = nil, waiting = {}, last = nil }

-- `:Ffind` and the autocommand recording entered buffers (again: replaced, not doubled).
function M.define()
  vim.api.nvim_create_user_command("Ffind", function(opts)
    M.pick(opts.args, opts.bang)
  end, { nargs = "*", bang = true, force = true,
         desc = "Pick files with ffind (! = hidden and ignored too)" })
  local group = vim.api.nvim_create_augroup("ffind_remember", { clear = true })
  vim.api.nvim_create_autocmd("BufEnter", {
    group = group,
    callback = function(args)
      M.remember_buffer(args.buf)
    end,
  })
end

-- Options (see M.config); also defines `:Ffind`, for plugin managers that add the folder to
-- 'runtimepath' after Neovim has sourced the plugin/ files.
function M.setup(opts)
  M.config = vim.tbl_extend("force", M.config, opts or {})
  state.remember = nil
  M.define()
end

-- The picker's argument list (without the output redirection): ffind -i -0 [-H -I] [args] [-- query].
function M.command(query, all)
  local argv = { M.config.cmd, "-i", "-0" }
  if all then
    vim.list_extend(argv, { "-H", "-I" })
  end
  vim.list_extend(argv, M.config.args)
  if query ~= nil and query ~= "" then
    vim.list_extend(argv, { "--", query })
  end
  return argv
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then
    return ""
  end
  local data = f:read("*a") or ""
  f:close()
  return data
end

-- The picks in ffind's -0 output, as paths relative to the editor's folder when below it.
local function parse_picks(data, cwd)
  local picks = {}
  for item in data:gmatch("([^%z]+)%z") do
    if item:sub(1, 1) ~= "/" then
      item = cwd .. "/" .. item
    end
    table.insert(picks, vim.fn.fnamemodify(item, ":~:."))
  end
  return picks
end

-- Edit one pick; several go to the quickfix list (the first one edited).
function M.open(picks)
  if #picks == 0 then
    return
  end
  if #picks == 1 then
    vim.cmd("edit " .. vim.fn.fnameescape(picks[1]))
    return
  end
  local items = {}
  for _, p in ipairs(picks) do
    table.insert(items, { filename = p, lnum = 1, col = 1, text = p })
  end
  vim.fn.setqflist({}, " ", { title = "ffind", items = items })
  vim.cmd("cfirst")
  if M.config.open_quickfix then
    vim.cmd("botright copen")
    vim.cmd("wincmd p")
  end
end

local function size(value, total)
  if value <= 1 then
    value = math.floor(total * value)
  end
  return math.max(1, math.min(value, total))
end

local function float_window(buf)
  local cols, lines = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local border = M.config.border ~= "none" and 2 or 0
  local width = size(M.config.width, cols - border)
  local height = size(M.config.height, lines - border)
  return vim.api.nvim_open_win(buf, true, {
    relative = "editor",
    width = width,
    height = height,
    col = math.floor((cols - width - border) / 2),
    row = math.floor((lines - height - border) / 2),
    style = "minimal",
    border = M.config.border,
  })
end

-- `:Ffind[!] [query]`: the picker in a floating terminal, started in the editor's folder.
function M.pick(query, all)
  local out, err = vim.fn.tempname(), vim.fn.tempname()
  local cwd = vim.fn.getcwd()
  -- The picker draws on the terminal (/dev/tty); its stdout (the picks) and stderr go to files.
  local argv = { "sh", "-c", 'o=$1; e=$2; shift 2; exec "$@" >"$o" 2>"$e"', "sh", out, err }
  vim.list_extend(argv, M.command(query, all))
  local buf = vim.api.nvim_create_buf(false, true)
  local win = float_window(buf)
  local function on_exit(_, code)
    vim.schedule(function()
      if vim.api.nvim_win_is_valid(win) then
        vim.api.nvim_win_close(win, true)
      end
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_delete(buf, { force = true })
      end
      local picked, message = read_file(out), read_file(err)
      os.remove(out)
      os.remove(err)
      if code == 0 then
        M.open(parse_picks(picked, cwd))
      elseif code ~= 1 and code ~= 130 then
        vim.notify(message ~= "" and message or ("ffind exited with " .. code), vim.log.levels.ERROR)
      end
    end)
  end
  local ok, job = pcall(vim.fn.termopen, argv, { cwd = cwd, on_exit = on_exit })
  if not ok or job <= 0 then
    vim.api.nvim_win_close(win, true)
    vim.notify("ffind: cannot start " .. M.config.cmd, vim.log.levels.ERROR)
    return
  end
  vim.cmd("startinsert")
end

-- --- memory: `ffind --remember FILE`, spawned, never waited for

-- Start `cmd ARGS` in the background; `on_output(code, stdout)` (optional) once it has exited
-- and its output has been read to the end.
local function spawn(args, on_output)
  local stdout = on_output and vim.loop.new_pipe(false) or nil
  local chunks, code, pending = {}, nil, on_output and 2 or 1
  local handle
  local function step()
    pending = pending - 1
    if pending == 0 and on_output then
      vim.schedule(function()
        on_output(code, table.concat(chunks))
      end)
    end
  end
  local ok, spawned = pcall(vim.loop.spawn, M.config.cmd, {
    args = args,
    stdio = { nil, stdout, nil },
  }, function(exit_code)
    code = exit_code
    if handle then
      handle:close()
    end
    step()
  end)
  handle = ok and spawned or nil
  if not handle then
    if stdout then
      stdout:close()
    end
    if on_output then
      on_output(-1, "")
    end
    return
  end
  vim.loop.unref(handle) -- never keeps the editor from exiting
  if stdout then
    stdout:read_start(function(_, data)
      if data then
        table.insert(chunks, data)
      else
        stdout:close()
        step()
      end
    end)
  end
end

local function record(path)
  spawn({ "--remember", path })
end

-- Learn once (asynchronously) whether the installed ffind has --remember; files entered
-- meanwhile wait (the last 20).
local function when_supported(path)
  local setting = M.config.remember
  if setting == false then
    return
  elseif setting == true or state.remember == true then
    record(path)
    return
  elseif state.remember == false then
    return
  end
  table.insert(state.waiting, path)
  if #state.waiting > 20 then
    table.remove(state.waiting, 1)
  end
  if state.remember == "checking" then
    return
  end
  state.remember = "checking"
  spawn({ "--help" }, function(code, text)
    state.remember = code == 0 and text:find("%-%-remember") ~= nil
    local waiting = state.waiting
    state.waiting = {}
    if state.remember then
      for _, p in ipairs(waiting) do
        record(p)
      end
    end
  end)
end

function M.remember_buffer(buf)
  if M.config.remember == false or vim.bo[buf].buftype ~= "" then
    return
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" or name == state.last or vim.fn.filereadable(name) ~= 1 then
    return
  end
  state.last = name
  when_supported(vim.fn.fnamemodify(name, ":p"))
end

return M

-- ffind for Neovim (0.7 or later): `:Ffind [query]` and `:Ffind! [query]`.
-- The work is in lua/ffind/init.lua; `require("ffind").setup({...})` changes the options.
if vim.g.loaded_ffind == 1 then
  return
end
vim.g.loaded_ffind = 1

vim.api.nvim_create_user_command("Ffind", function(opts)
  require("ffind").pick(opts.args, opts.bang)
end, { nargs = "*", bang = true, desc = "Pick files with ffind (! = hidden and ignored too)" })

local group = vim.api.nvim_create_augroup("ffind_remember", { clear = true })
vim.api.nvim_create_autocmd("BufEnter", {
  group = group,
  callback = function(args)
    require("ffind").remember_buffer(args.buf)
  end,
})

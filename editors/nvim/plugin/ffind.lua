-- ffind for Neovim (0.7 or later): `:Ffind [query]` and `:Ffind! [query]`.
-- The work is in lua/ffind/init.lua; `require("ffind").setup({...})` changes the options.
if vim.g.loaded_ffind == 1 then
  return
end
vim.g.loaded_ffind = 1
require("ffind").define()

-- lua_work.lua - a workload for the Lua interpreter built with the plugin:
-- recursion, table sort with a Lua comparator, string matching.  No errors and
-- no coroutines: Lua implements those with longjmp, which skips exit probes.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 20000 do t[#t + 1] = string.format("k%05d", (i * 7919) % 20000) end
table.sort(t, function(a, b) return a > b end)
local words = {}
for w in string.gmatch(string.rep("the quick brown fox jumps over the lazy dog ", 2000), "%a+") do
  words[w] = (words[w] or 0) + 1
end
print(fib(22), #t, t[1], words.the)

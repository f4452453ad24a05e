-- work.lua - the field suite's Lua workload: recursion, table sort with a Lua
-- comparator, string building and matching, closures.  No errors, no
-- coroutines (Lua implements them with longjmp, which skips exit probes).
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local t = {}
for i = 1, 50000 do t[#t + 1] = string.format("k%06d", (i * 7919) % 50000) end
table.sort(t, function(a, b) return a > b end)
local words = {}
for w in string.gmatch(string.rep("the quick brown fox jumps over the lazy dog ", 5000), "%a+") do
  words[w] = (words[w] or 0) + 1
end
local acc = 0
for i = 1, 50000 do local f = function(x) return x * 2 + i end acc = (acc + f(i)) % 1000003 end
print(fib(24), #t, t[1], words.the, acc)

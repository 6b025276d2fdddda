-- sysbench's bundled oltp_update_index, reporting p95 and p99 every second
-- (see steady_common.lua).  Same options as the bundled script.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = dir .. "?.lua;" .. package.path
require("steady_common").builtin("oltp_update_index", dir)

-- Shoppers each adding to their cart, checking out and (with `pay`) paying, played by wrk: the
-- same load generator as the write probe (../shared/bench/write-probe.sh), so a write bench's
-- ratio to the probe divides like by like. Run by bench/support.ts's shopperLoad:
--   SHOPPER_SETTINGS=<settings file> wrk -t<C> -c<C> -d<S>s -s bench/shopper-load.lua <url>
-- One connection per thread, so each thread's Lua state is one connection's: connection i plays
-- shoppers i, i + C, i + 2C, … in turn, and no two requests ever touch one cart at once. A cycle
-- is POST /api/cart, POST /api/cart/checkout and, with `pay`, POST /api/payment; a failed step ends
-- its cycle. Counted are the steps answered within the window [warm-up, warm-up + seconds]; once it
-- has passed, each connection finishes its cycle and then waits for wrk to stop, so nothing is
-- left half done. done() prints the summary as one line of JSON after wrk's own report.
--
-- The settings file (SHOPPER_SETTINGS) has one `key value` a line: connections, warmup, seconds, pay (0 or 1),
-- soldOutIsAnswer (0 or 1), address (its JSON), base (one a server: connection i talks to base
-- i mod their number), and cookie and product (one line each).

local ffi = require("ffi")
ffi.cdef([[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *tp);
]])
local timespec = ffi.new("bench_timespec")
local function now() -- seconds, CLOCK_MONOTONIC (shared by every thread)
  ffi.C.clock_gettime(1, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) / 1e9
end

local function readSettings(file)
  local s = { cookies = {}, products = {}, bases = {} }
  for line in io.lines(file) do
    local key, value = line:match("^(%S+) (.*)$")
    if key == "cookie" then
      s.cookies[#s.cookies + 1] = value
    elseif key == "product" then
      s.products[#s.products + 1] = value
    elseif key == "base" then
      s.bases[#s.bases + 1] = value
    elseif key then
      s[key] = value
    end
  end
  return s
end

local s = readSettings(os.getenv("SHOPPER_SETTINGS"))

-- Main state: each thread is told its connection's number and the start, and given its server.
local threads = {}
local startedAt = now() -- the main state's, given to every thread as its global `started`
function setup(thread)
  local number = #threads
  threads[number + 1] = thread
  thread:set("connection", number)
  thread:set("started", startedAt)
  if #s.bases > 1 then
    local host, port = s.bases[number % #s.bases + 1]:match("^http://([^:/]+):(%d+)")
    thread.addr = wrk.lookup(host, port)[1]
  end
end

-- A thread's state, that is, its connection's. What done() reads from each thread is global, and
-- flat: wrk's thread:get copies a table of tables wrongly.
counts = { orders = 0, paid = 0, failures = 0, refused = 0, allOrders = 0, allPaid = 0 }
add, checkout, payment = {}, {}, {}
local latencies = { add = add, checkout = checkout, payment = payment }
failures = {}
local id, windowStart, windowEnd, pay, soldOutIsAnswer, host
local step, turn, orderId, sentAt, cookie, product = "add", 0, nil, 0, nil, nil

function init()
  id = connection
  windowStart = started + tonumber(s.warmup)
  windowEnd = windowStart + tonumber(s.seconds)
  pay = s.pay == "1"
  soldOutIsAnswer = s.soldOutIsAnswer == "1"
  host = wrk.host .. ":" .. wrk.port
end

local function post(path, body)
  return "POST " .. path .. " HTTP/1.1\r\nHost: " .. host .. "\r\nCookie: " .. cookie
    .. "\r\nContent-Type: application/json\r\nContent-Length: " .. #body .. "\r\n\r\n" .. body
end

-- Past the window, a connection starts no new cycle: it waits out wrk's last seconds.
function delay()
  if step == "add" and now() > windowEnd then return 600000 end
  return 0
end

function request()
  if step == "add" then
    cookie = s.cookies[(id + turn * tonumber(s.connections)) % #s.cookies + 1]
    product = s.products[turn % #s.products + 1]
    sentAt = now()
    return post("/api/cart", '{"productId":"' .. product .. '","quantity":1}')
  elseif step == "checkout" then
    sentAt = now()
    return post("/api/cart/checkout", '{"shippingAddress":' .. s.address .. "}")
  else
    sentAt = now()
    return post("/api/payment", '{"orderId":"' .. orderId .. '","paymentMethodId":"pm_card_visa"}')
  end
end

local function nextCycle()
  step, turn, orderId = "add", turn + 1, nil
end

-- Whether the answer was the one expected; a refusal or failure is counted, and ends the cycle.
local function note(status, body)
  if soldOutIsAnswer and status == 400 and body:find('"Insufficient inventory"', 1, true) then
    counts.refused = counts.refused + 1
    return false
  end
  if status ~= 200 then
    counts.failures = counts.failures + 1
    local key = step .. " " .. status
    if not failures[key] then failures[key] = body:sub(1, 200) end
    return false
  end
  local at = now()
  if at >= windowStart and at <= windowEnd then
    local list = latencies[step]
    list[#list + 1] = (at - sentAt) * 1000
  end
  return true
end

function response(status, headers, body)
  if not note(status, body) then return nextCycle() end
  local at = now()
  local inWindow = at >= windowStart and at <= windowEnd
  if step == "add" then
    step = "checkout"
  elseif step == "checkout" then
    counts.allOrders = counts.allOrders + 1
    if inWindow then counts.orders = counts.orders + 1 end
    orderId = body:match('"orderId":"([^"]+)"')
    if pay then step = "payment" else nextCycle() end
  else
    counts.allPaid = counts.allPaid + 1
    if inWindow then counts.paid = counts.paid + 1 end
    nextCycle()
  end
end

-- Main state again, once wrk has stopped: every connection's counts summed, as one line of JSON.
local function percentile(values, p)
  if #values == 0 then return "null" end
  table.sort(values)
  local v = values[math.min(#values, math.floor(p / 100 * #values) + 1)]
  return string.format("%.1f", math.floor(v * 10 + 0.5) / 10)
end

local function quote(text)
  return '"' .. text:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

function done(summary)
  local total = { orders = 0, paid = 0, failures = 0, refused = 0, allOrders = 0, allPaid = 0 }
  local all = { add = {}, checkout = {}, payment = {} }
  local samples = {}
  for _, thread in ipairs(threads) do
    for key, value in pairs(thread:get("counts")) do total[key] = total[key] + value end
    for kind, list in pairs(all) do
      for _, ms in ipairs(thread:get(kind)) do list[#list + 1] = ms end
    end
    for key, body in pairs(thread:get("failures")) do samples[key] = samples[key] or body end
  end
  local errors = summary.errors
  local lost = errors.connect + errors.read + errors.write + errors.timeout
  local seconds = tonumber(s.seconds)
  local parts = {}
  for key, body in pairs(samples) do parts[#parts + 1] = quote(key) .. ":" .. quote(body) end
  if lost > 0 then parts[#parts + 1] = quote("socket") .. ":" .. quote(string.format("connect %d, read %d, write %d, timeout %d", errors.connect, errors.read, errors.write, errors.timeout)) end
  local function step(kind)
    local list = all[kind]
    return string.format('{"count":%d,"p50":%s,"p99":%s}', #list, percentile(list, 50), percentile(list, 99))
  end
  io.write(string.format(
    '\n{"seconds":%d,"ordersPerSecond":%d,"paidPerSecond":%d,"add":%s,"checkout":%s,"payment":%s,"failures":%d,"refused":%d,"failureSamples":{%s},"all":{"orders":%d,"paid":%d}}\n',
    seconds, math.floor(total.orders / seconds + 0.5), math.floor(total.paid / seconds + 0.5), step("add"), step("checkout"), step("payment"),
    total.failures + lost, total.refused, table.concat(parts, ","), total.allOrders, total.allPaid))
end

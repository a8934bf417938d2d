-- Parley's rate limits in Redis: GCRA, the algorithm governor runs in one process, with the
-- same integer-microsecond quota, so both count alike. One call per request, atomic.
--
-- ARGV[1] = 'admit': KEYS[1] is the client address's block key (checked only when ARGV[2] is
--   '1'), KEYS[2..] the key's buckets in order, ARGV[3..] their interval (µs) and burst in pairs.
--   Counting stops at the first refusal.
-- ARGV[1] = 'bad_key': KEYS[1] is the block key, KEYS[2] the address's bad-key bucket,
--   ARGV[3], ARGV[4] its interval and burst. A refusal sets the block key for the wait.
--
-- Returns flat pairs: {2, wait_us} blocked; {1, remaining} counted; {0, wait_us} refused.
-- The clock is Redis's own (TIME), so instances with skewed clocks still agree.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

-- Counts one request in bucket `key`; TAT (theoretical arrival time) in µs since the epoch.
local function gcra(key, interval, burst)
  local tat = tonumber(redis.call('GET', key))
  if not tat or tat < now then tat = now end
  local new_tat = tat + interval
  local allow_at = new_tat - interval * burst
  if allow_at > now then
    return 0, allow_at - now
  end
  redis.call('SET', key, string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000))
  return 1, math.floor((now - allow_at) / interval)
end

local function blocked()
  local ms = redis.call('PTTL', KEYS[1])
  if ms > 0 then return ms * 1000 end
  return nil
end

local out = {}
if ARGV[1] == 'admit' then
  if ARGV[2] == '1' then
    local wait = blocked()
    if wait then return {2, wait} end
  end
  for i = 2, #KEYS do
    local ok, value = gcra(KEYS[i], tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i]))
    out[#out + 1] = ok
    out[#out + 1] = value
    if ok == 0 then break end
  end
  return out
end

local wait = blocked()
if wait then return {2, wait} end
local ok, value = gcra(KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
if ok == 0 then
  redis.call('SET', KEYS[1], '1', 'PX', math.max(1, math.ceil(value / 1000)))
end
return {ok, value}

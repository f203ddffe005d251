/**
 * Lua scripts that make each job-state transition atomic in Redis. Keys (prefix P):
 *   P:job:<id>            hash: spec, state, attempts, stage, checkpoint, error, reason, owner, times
 *   P:delivery:<id>       the job a webhook delivery went to (expires after `deliveryTtl` seconds)
 *   P:active:<issue>      the queued or running job of an issue (one at a time)
 *   P:state:<state>       job ids in each state: sets for queued/running, sorted sets (by finish time) for
 *                         done/failed/cancelled, trimmed with the finished job records after the retention
 *   P:cancel              pub/sub channel: ids of jobs cancelled while running
 *   P:held                hash: delivery id → JSON {event, payload} of a delivery still being handled
 *   P:held-at             sorted set: held delivery ids by the time they were held or last claimed
 */

/**
 * Lua helper: moves a job id between the state indexes; a finished job's record and index entry expire
 * after `retainMs`.
 */
function move(retainMs: number): string {
  const r = Math.max(1, Math.floor(retainMs));
  return `
local function move(p, from, to, id, now)
  if from == 'queued' or from == 'running' then redis.call('SREM', p .. 'state:' .. from, id)
  else redis.call('ZREM', p .. 'state:' .. from, id) end
  if to == 'queued' or to == 'running' then
    redis.call('SADD', p .. 'state:' .. to, id)
    redis.call('PERSIST', p .. 'job:' .. id)
  else
    redis.call('ZADD', p .. 'state:' .. to, now, id)
    redis.call('ZREMRANGEBYSCORE', p .. 'state:' .. to, '-inf', '(' .. (tonumber(now) - ${r}))
    redis.call('PEXPIRE', p .. 'job:' .. id, ${r})
  end
end
`;
}

/** KEYS: delivery, active, job. ARGV: prefix, id, spec, now, deliveryTtl. → {status, jobId} */
export const ENQUEUE = `
local seen = redis.call('GET', KEYS[1])
if seen then return {'duplicate', seen} end
local active = redis.call('GET', KEYS[2])
if active then
  redis.call('SET', KEYS[1], active, 'EX', ARGV[5])
  return {'active', active}
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[5])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[3], 'id', ARGV[2], 'spec', ARGV[3], 'state', 'queued', 'attempts', 0,
  'checkpoint', '{}', 'activeKey', KEYS[2], 'createdAt', ARGV[4], 'updatedAt', ARGV[4])
redis.call('SADD', ARGV[1] .. 'state:queued', ARGV[2])
return {'queued', ARGV[2]}
`;

/**
 * A worker takes the job. KEYS: job. ARGV: prefix, id, owner, now, maxAttempts.
 * → 'claimed' | 'cancelled' | 'done' | 'failed' | 'missing' | 'exhausted'
 */
export const CLAIM = (retainMs: number): string => `${move(retainMs)}
local st = redis.call('HGET', KEYS[1], 'state')
if not st then return 'missing' end
if st ~= 'queued' and st ~= 'running' then return st end
local attempts = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0')
if st == 'running' and attempts >= tonumber(ARGV[5]) then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'reason', 'lease-expired', 'owner', '', 'updatedAt', ARGV[4],
    'error', 'the worker running this job stopped responding ' .. attempts .. ' times')
  move(ARGV[1], 'running', 'failed', ARGV[2], ARGV[4])
  local ak = redis.call('HGET', KEYS[1], 'activeKey')
  if ak and redis.call('GET', ak) == ARGV[2] then redis.call('DEL', ak) end
  return 'exhausted'
end
redis.call('HSET', KEYS[1], 'state', 'running', 'owner', ARGV[3], 'attempts', attempts + 1, 'updatedAt', ARGV[4])
if st == 'queued' then move(ARGV[1], 'queued', 'running', ARGV[2], ARGV[4]) end
return 'claimed'
`;

/** Checkpoint (stage given) or heartbeat. KEYS: job. ARGV: owner, stage, checkpoint, now. → ok|cancelled|lost */
export const RENEW = `
local st = redis.call('HGET', KEYS[1], 'state')
if st == 'cancelled' then return 'cancelled' end
if st ~= 'running' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 'lost' end
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 'stage', ARGV[2], 'checkpoint', ARGV[3], 'updatedAt', ARGV[4])
end
return 'ok'
`;

/**
 * The holder ends its run. KEYS: job. ARGV: prefix, id, owner, newState, error, reason, now, refund.
 * newState 'queued' puts it back (retry or shutdown; refund '1' un-counts the attempt).
 * → 'ok' or the state the job was found in ('cancelled', ...) when this worker no longer holds it.
 */
export const FINISH = (retainMs: number): string => `${move(retainMs)}
local st = redis.call('HGET', KEYS[1], 'state')
if st ~= 'running' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[3] then return st or 'missing' end
redis.call('HSET', KEYS[1], 'state', ARGV[4], 'owner', '', 'updatedAt', ARGV[7])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[5], 'reason', ARGV[6]) end
if ARGV[4] == 'done' then redis.call('HDEL', KEYS[1], 'error', 'reason') end
if ARGV[8] == '1' then
  local a = tonumber(redis.call('HGET', KEYS[1], 'attempts') or '0')
  if a > 0 then redis.call('HSET', KEYS[1], 'attempts', a - 1) end
end
if ARGV[4] ~= 'queued' then
  local ak = redis.call('HGET', KEYS[1], 'activeKey')
  if ak and redis.call('GET', ak) == ARGV[2] then redis.call('DEL', ak) end
end
move(ARGV[1], 'running', ARGV[4], ARGV[2], ARGV[7])
return 'ok'
`;

/** KEYS: active. ARGV: prefix, now. → false | {id, previous state} */
export const CANCEL = (retainMs: number): string => `${move(retainMs)}
local id = redis.call('GET', KEYS[1])
if not id then return false end
redis.call('DEL', KEYS[1])
local jk = ARGV[1] .. 'job:' .. id
local st = redis.call('HGET', jk, 'state')
if st ~= 'queued' and st ~= 'running' then return false end
redis.call('HSET', jk, 'state', 'cancelled', 'reason', 'cancelled', 'updatedAt', ARGV[2])
move(ARGV[1], st, 'cancelled', id, ARGV[2])
if st == 'running' then redis.call('PUBLISH', ARGV[1] .. 'cancel', id) end
return {id, st}
`;

/** Marks a job failed that BullMQ gave up on (stalled too often). KEYS: job. ARGV: prefix, id, now, error. */
export const FORCE_FAIL = (retainMs: number): string => `${move(retainMs)}
local st = redis.call('HGET', KEYS[1], 'state')
if st ~= 'queued' and st ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'failed', 'reason', 'lease-expired', 'error', ARGV[4], 'owner', '',
  'updatedAt', ARGV[3])
move(ARGV[1], st, 'failed', ARGV[2], ARGV[3])
local ak = redis.call('HGET', KEYS[1], 'activeKey')
if ak and redis.call('GET', ak) == ARGV[2] then redis.call('DEL', ak) end
return 1
`;

/** KEYS: held, held-at. ARGV: now, olderThanMs. Claims (re-times) and returns id, body pairs. */
export const TAKE_HELD = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local body = redis.call('HGET', KEYS[1], id)
  if body then
    redis.call('ZADD', KEYS[2], ARGV[1], id)
    table.insert(out, id)
    table.insert(out, body)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return out
`;

import { Redis } from "ioredis";
import { assertAmount, type LimitDecision, type LimitStore } from "./limits.ts";

/** KEYS: counter. ARGV: amount, limit ('inf' for none), windowMs. → {allowed, value, pttl} */
const TAKE = `
local v = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if ARGV[2] ~= 'inf' and v + amount > tonumber(ARGV[2]) + 1e-9 then
  return {0, tostring(v), redis.call('PTTL', KEYS[1])}
end
local nv = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return {1, nv, ttl}
`;

/** KEYS: counter. ARGV: amount. → the new value (the counter's expiry is kept). */
const GIVE = `
local v = tonumber(redis.call('GET', KEYS[1]) or '')
if not v then return '0' end
local nv = v - tonumber(ARGV[1])
if nv < 0 then nv = 0 end
redis.call('SET', KEYS[1], tostring(nv), 'KEEPTTL')
return tostring(nv)
`;

type Scripted = Redis & {
  afLimitTake: (...args: Array<string | number>) => Promise<[number, string, number]>;
  afLimitGive: (...args: Array<string | number>) => Promise<string>;
};

/** Limits kept in Redis so that they hold across every worker machine. */
export class RedisLimitStore implements LimitStore {
  readonly #redis: Scripted;
  readonly #p: string;

  constructor(options: { redisUrl: string; prefix?: string }) {
    this.#p = `${options.prefix ?? "auto-fix"}:limit:`;
    this.#redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 }) as Scripted;
    this.#redis.on("error", () => {
      // Surfaced to the caller as a rejected call; the connection retries on its own.
    });
    this.#redis.defineCommand("afLimitTake", { lua: TAKE, numberOfKeys: 1 });
    this.#redis.defineCommand("afLimitGive", { lua: GIVE, numberOfKeys: 1 });
  }

  async #take(key: string, amount: number, limit: number, windowMs: number): Promise<LimitDecision> {
    assertAmount(amount, windowMs);
    const [ok, value, pttl] = await this.#redis.afLimitTake(
      this.#p + key,
      String(amount),
      Number.isFinite(limit) ? String(limit) : "inf",
      Math.ceil(windowMs),
    );
    const now = Date.now();
    return {
      allowed: ok === 1,
      value: Number(value),
      limit,
      resetAt: pttl > 0 ? now + pttl : now + windowMs,
    };
  }

  take(key: string, amount: number, limit: number, windowMs: number): Promise<LimitDecision> {
    return this.#take(key, amount, limit, windowMs);
  }

  async add(key: string, amount: number, windowMs: number): Promise<number> {
    return (await this.#take(key, amount, Number.POSITIVE_INFINITY, windowMs)).value;
  }

  async give(key: string, amount: number): Promise<number> {
    assertAmount(amount, 1);
    return Number(await this.#redis.afLimitGive(this.#p + key, String(amount)));
  }

  async get(key: string): Promise<number> {
    return Number((await this.#redis.get(this.#p + key)) ?? 0);
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

import { after, before } from "node:test";
import { RedisJobQueue } from "../../src/jobs/redis-queue.ts";
import { queueContract } from "./support/contract.ts";
import { type RedisServer, startRedis } from "./support/redis-server.ts";

let redis: RedisServer;
let n = 0;

before(async () => {
  redis = await startRedis();
});
after(async () => {
  await redis.stop();
});

queueContract("redis queue", async () => {
  n += 1;
  const prefix = `t${n}`;
  return {
    open: () =>
      new RedisJobQueue({ redisUrl: redis.url, prefix, leaseMs: 5000, heartbeatMs: 50, retryBaseMs: 10 }),
    dispose: async () => {},
  };
});

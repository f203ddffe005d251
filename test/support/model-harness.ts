import type { ModelConfig } from "../../src/model/config.ts";
import { OpenAIModel } from "../../src/model/openai-model.ts";
import { ArtifactRecorder } from "../../src/model/recorder.ts";
import { type Budget, UsageMeter } from "../../src/model/usage.ts";
import { tempDir } from "./temp.ts";

/** Model settings for tests against the scripted server: no real waiting, short timeouts. */
export function testModelConfig(baseURL: string, over: Partial<ModelConfig> = {}): ModelConfig {
  return {
    baseURL,
    apiKey: "test-key",
    model: "gpt-4o-mini",
    timeoutMs: 5000,
    maxRetries: 3,
    baseBackoffMs: 1000,
    maxBackoffMs: 30_000,
    maxRetryAfterMs: 120_000,
    jsonMode: true,
    stream: false,
    ...over,
  };
}

export interface TestModel {
  model: OpenAIModel;
  meter: UsageMeter;
  recorder: ArtifactRecorder;
  /** Every delay the model asked to wait between retries (nothing actually waits). */
  sleeps: number[];
  dir: string;
}

export function makeTestModel(
  baseURL: string,
  opts: { config?: Partial<ModelConfig>; budget?: Budget; dir?: string; maxUnusable?: number } = {},
): TestModel {
  const dir = opts.dir ?? tempDir("auto-fix-model-");
  const meter = new UsageMeter({
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...(opts.maxUnusable !== undefined ? { maxUnusable: opts.maxUnusable } : {}),
  });
  const recorder = new ArtifactRecorder(dir);
  const sleeps: number[] = [];
  const model = new OpenAIModel(testModelConfig(baseURL, opts.config), {
    meter,
    recorder,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
  });
  return { model, meter, recorder, sleeps, dir };
}

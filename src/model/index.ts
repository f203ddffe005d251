export * from "./config.ts";
export * from "./errors.ts";
export * from "./json.ts";
export * from "./openai-model.ts";
export * from "./recorder.ts";
export * from "./trim.ts";
export type * from "./types.ts";
export * from "./usage.ts";

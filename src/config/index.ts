export {
  type Detection,
  detectProject,
  frameworkOfCommand,
  type ProjectLanguage,
  type TestFramework,
} from "./detect.ts";
export {
  ALWAYS_PROTECTED,
  loadRepoConfig,
  MAX_CONFIG_BYTES,
  parseRepoConfig,
  parseRepoConfigFile,
  type RepoConfig,
  RepoConfigError,
  type ReproducerConfig,
} from "./load.ts";
export { compileGlob, isProtectedPath, matchGlob } from "../core/path-rules.ts";
export { CONFIG_PATH, type RepoConfigFile, type ReproducerRuntime } from "./schema.ts";

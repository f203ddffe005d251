export {
  type Detection,
  detectProject,
  frameworkOfCommand,
  type ProjectLanguage,
  runnerOfCommand,
  type TestFramework,
} from "./detect.ts";
export {
  ALWAYS_PROTECTED,
  buildScriptGlobs,
  DEFAULT_VALIDATION_BUDGET_S,
  loadRepoConfig,
  MAX_CONFIG_BYTES,
  parseRepoConfig,
  parseRepoConfigFile,
  protectedPathsFromEnv,
  type RepoConfig,
  RepoConfigError,
  type ReproducerConfig,
} from "./load.ts";
export { resolveScriptCommand } from "./package-scripts.ts";
export { compileGlob, isProtectedPath, matchGlob } from "../core/path-rules.ts";
export {
  CONFIG_PATH,
  type RepoConfigFile,
  type ReproducerRuntime,
  TEST_RUNNERS,
  type TestRunnerKind,
} from "./schema.ts";

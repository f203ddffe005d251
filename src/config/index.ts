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
  parseRepoConfig,
  parseRepoConfigFile,
  type RepoConfig,
  globToRegExp,
  isProtectedPath,
  RepoConfigError,
  type ReproducerConfig,
} from "./load.ts";
export { CONFIG_PATH, type RepoConfigFile, type ReproducerRuntime } from "./schema.ts";

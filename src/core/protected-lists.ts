/**
 * The lists of protected files (CI and repository configuration, workspace and agent files, build
 * scripts), each family with what it is and does. The rules that apply them are in `path-rules.ts`.
 */

const yamls = (names: string[]) => names.flatMap((n) => [`${n}.yml`, `${n}.yaml`]);

/**
 * A family of protected files: what they are and do, in words a model can act on ("is an editor's task
 * file: its commands run when the folder is opened"), and their globs. Matched without regard to case:
 * macOS and Windows checkouts read `.VSCode/tasks.json` as `.vscode/tasks.json`.
 */
export interface ProtectedFamily {
  what: string;
  globs: readonly string[];
}

/**
 * Files that run code on the machine of whoever checks the branch out or opens it (git hook managers,
 * pre-commit, dev containers and cloud workspaces, editor tasks and settings, direnv and mise, package
 * managers' hooks), that steer the next coding agent that opens the branch (agent settings and
 * instruction files), or that change what git and the pull request show (`.gitattributes`: diff and
 * merge drivers, `linguist-generated` and `binary` hide a file's diff). Anchored at the root unless `**`
 * says any depth: folders the tools also read below the root are protected at any depth.
 */
export const WORKSPACE_FAMILIES: readonly ProtectedFamily[] = [
  {
    what: "is a coding agent's settings or instruction file: it steers the next agent that opens the branch (what it believes, which commands it runs without asking)",
    globs: [
      "**/.claude/**",
      "**/CLAUDE.md",
      "**/CLAUDE.local.md",
      "**/AGENTS.md",
      "**/AGENTS.override.md",
      "**/AGENT.md",
      "**/GEMINI.md",
      "**/.gemini/**",
      "**/.cursorrules",
      "**/.cursorignore",
      "**/.cursor/**",
      "**/.github/copilot-instructions.md",
      "**/.github/instructions/**",
      "**/.github/prompts/**",
      "**/.github/chatmodes/**",
      "**/.windsurfrules",
      "**/.windsurf/**",
      "**/.clinerules",
      "**/.clineignore",
      "**/.aider*",
      "**/.continue/**",
      "**/.continuerc.json",
      "**/.codex/**",
      "**/.roo/**",
      "**/.roomodes",
      "**/.kiro/**",
      "**/.junie/**",
      "**/.amazonq/**",
      "**/.augment/**",
      "**/.augment-guidelines",
      "**/.goosehints",
      "**/.opencode/**",
      "**/opencode.json",
      "**/.openhands/**",
      "**/.openhands_instructions",
      "**/.trae/**",
      "**/.mcp.json",
    ],
  },
  {
    what: "is a git hook or a hook manager's configuration: its commands run when someone commits, pushes or checks out",
    globs: [
      "**/.husky/**",
      "**/.githooks/**",
      "**/.git-hooks/**",
      ".hooks/**",
      ...yamls(["lefthook", ".lefthook", ".config/lefthook", "lefthook-local", ".lefthook-local"]),
      ...yamls([".config/lefthook-local"]),
      ...["lefthook", ".lefthook", "lefthook-local", ".lefthook-local"].flatMap((n) => [
        `${n}.toml`,
        `${n}.json`,
        `${n}.jsonc`,
      ]),
      ".simple-git-hooks",
      ".simple-git-hooks.*",
      "simple-git-hooks.*",
      ".overcommit.yml",
      ".lintstagedrc",
      ".lintstagedrc.*",
      "lint-staged.config.*",
      ...yamls([".pre-commit-config", ".pre-commit-hooks"]),
    ],
  },
  {
    what: "is a dev container or cloud workspace setting: its commands run when the branch is opened in one",
    globs: [
      "**/.devcontainer/**",
      "**/.devcontainer.json",
      ".gitpod.yml",
      ".gitpod.yaml",
      ".gitpod.Dockerfile",
      ".codesandbox/**",
      ".idx/**",
      "devbox.json",
    ],
  },
  {
    what: "is an editor's task, launch or settings file: its commands run when the folder is opened",
    globs: [
      "**/.vscode/**",
      "**/*.code-workspace",
      "**/.idea/**",
      "**/.fleet/**",
      "**/.zed/**",
      "**/.exrc",
      "**/.nvimrc",
      "**/.nvim.lua",
    ],
  },
  {
    what: "is loaded into the shell on `cd` into its folder (direnv, mise, dotenv): what it sets or runs applies to every command there",
    globs: [
      "**/.envrc",
      "**/.env",
      "**/.env.*",
      "**/mise.toml",
      "**/.mise.toml",
      "**/mise.*.toml",
      "**/.mise.*.toml",
      "**/mise/config.toml",
      "**/mise/conf.d/**",
      "**/.mise/**",
      "**/.config/mise.toml",
      "**/.config/mise.*.toml",
      "**/.config/mise/**",
      "**/.tool-versions",
    ],
  },
  {
    what: "is git's attributes or LFS setting: it decides which programs filter files and what the pull request's diff shows",
    globs: ["**/.gitattributes", ".lfsconfig"],
  },
  {
    what: "is a package manager's hook, plugin or build setting: it runs when dependencies are installed or code is built",
    globs: [
      ".pnpmfile.cjs",
      ".pnpmfile.mjs",
      ".yarn/releases/**",
      ".yarn/plugins/**",
      "**/.cargo/config",
      "**/.cargo/config.toml",
    ],
  },
];

export const WORKSPACE_PROTECTED_GLOBS: readonly string[] = WORKSPACE_FAMILIES.flatMap((f) => f.globs);

/**
 * Build scripts that run on every build, where a fix rarely needs a change: Cargo's `build.rs`, Gradle's
 * settings, build files, wrapper and `buildSrc`, Python's `setup.py` (its `cmdclass` runs on install).
 * Protected by default (they are in every configuration's `protected-paths`) unless the repository
 * says `build-scripts: editable`; matched without regard to case like the families above.
 */
export const BUILD_SCRIPT_GLOBS: readonly string[] = [
  "**/build.rs",
  "**/settings.gradle",
  "**/settings.gradle.kts",
  "**/build.gradle",
  "**/build.gradle.kts",
  "**/*.gradle",
  "**/*.gradle.kts",
  "**/gradle/wrapper/**",
  "**/gradlew",
  "**/gradlew.bat",
  "**/buildSrc/**",
  "**/setup.py",
];

export const BUILD_SCRIPT_WHAT =
  "is a build script that runs on every build or install (Cargo's build.rs, Gradle's settings, build files and wrapper, setup.py): a fix rarely needs it, so patches may not change it unless the repository allows it (`build-scripts: editable` in .github/auto-fix.yml)";

/** CI and repository configuration: always protected, whatever the repository's configuration says. */
export const ALWAYS_PROTECTED_GLOBS: readonly string[] = [
  ".github/**",
  ".gitlab-ci.yml",
  ".gitlab-ci.yaml",
  ".gitlab/**",
  ".circleci/**",
  ".travis.yml",
  ".travis.yaml",
  "azure-pipelines.yml",
  "azure-pipelines.yaml",
  ".azure-pipelines/**",
  "appveyor.yml",
  "appveyor.yaml",
  ".appveyor.yml",
  ".appveyor.yaml",
  "Jenkinsfile",
  ".buildkite/**",
  ".drone.yml",
  ".drone.yaml",
  "bitbucket-pipelines.yml",
  "bitbucket-pipelines.yaml",
  ".woodpecker/**",
  ".woodpecker.yml",
  ".woodpecker.yaml",
  ".ci/**",
  ".git/**",
  ".gitmodules",
  // Other forges' and CI services' pipelines: they run what they say with the repository's secrets.
  ".gitea/**",
  ".forgejo/**",
  ".cirrus.yml",
  ".cirrus.star",
  ".semaphore/**",
  "bitrise.yml",
  "codemagic.yaml",
  "cloudbuild.yaml",
  "cloudbuild.yml",
  ".teamcity/**",
  ".tekton/**",
  ".zuul.yaml",
  "zuul.d/**",
  ".builds/**",
  ".readthedocs.yaml",
  ".readthedocs.yml",
  // Who must review (GitHub reads CODEOWNERS here too) and what bots merge on their own.
  "CODEOWNERS",
  "docs/CODEOWNERS",
  "renovate.json",
  "renovate.json5",
  ".renovaterc",
  ".renovaterc.json",
  ".mergify.yml",
  ".mergify/**",
  ...WORKSPACE_PROTECTED_GLOBS,
];

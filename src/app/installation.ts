/**
 * The Probot wiring of GitHub for the worker: an installation's octokit and the repository port on it.
 * `src/issue-run/` sees only the port.
 */
import type { Probot } from "probot";
import { toGitHubApiError } from "../github/errors.ts";
import { createOctokitGitHub } from "../github/octokit-github.ts";
import { createOctokitPulls } from "../github/octokit-pulls.ts";
import type { ConnectInstallation, WorkerLog } from "../issue-run/job-worker.ts";

export type AppOctokit = Awaited<ReturnType<Probot["auth"]>>;

/**
 * How the worker reaches GitHub through this Probot app: authenticates as the job's installation (a
 * failure is a `GitHubApiError`), and makes every request of that octokit carry the job's abort signal.
 */
export function connectInstallation(app: Probot): ConnectInstallation {
  return async (installationId, owner, repo, signal) => {
    let octokit: AppOctokit;
    try {
      octokit = await app.auth(installationId);
    } catch (error) {
      throw toGitHubApiError(error, "POST", "/app/installations/{installation_id}/access_tokens");
    }
    octokit.hook.before("request", (request) => {
      request.request = { ...request.request, signal };
    });
    return {
      github: createOctokitGitHub(octokit, owner, repo),
      pulls: createOctokitPulls(octokit, owner, repo),
    };
  };
}

/** The worker's dependencies from a Probot app: its GitHub access and its logger. */
export function workerDeps(app: Probot): { connect: ConnectInstallation; log: WorkerLog } {
  return { connect: connectInstallation(app), log: app.log };
}

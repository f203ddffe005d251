import type { Progress } from "../contract/progress.ts";
import type { RunRequest } from "../sandbox/index.ts";

/** Longest command shown in progress; a longer one is cut with an ellipsis. */
const MAX_SHOWN = 80;

const label = (req: RunRequest): string => {
  const argv = typeof req.command === "string" ? null : req.command;
  // `sh -c <script> …`: the script is what runs.
  const shell =
    argv && /^(?:\/usr)?\/bin\/sh$|^sh$/.test(argv[0] ?? "") && argv[1] === "-c" ? argv[2] : undefined;
  const text = (shell ?? (argv ? argv.join(" ") : String(req.command))).replace(/\s+/g, " ").trim();
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
};

/**
 * Tells `progress` which sandboxed command is running and for how long, about every second while any
 * runs (the one running longest; how many more run beside it), and when none runs any more.
 */
export function commandWatch(progress: Progress): (req: RunRequest) => () => void {
  if (!progress.running) return () => () => {};
  const live = new Map<number, { command: string; started: number }>();
  let next = 0;
  let timer: NodeJS.Timeout | null = null;
  const show = () => {
    const oldest = live.values().next().value;
    progress.running?.(
      oldest
        ? {
            command: oldest.command,
            seconds: Math.floor((Date.now() - oldest.started) / 1000),
            others: live.size - 1,
          }
        : null,
    );
  };
  return (req) => {
    const id = next++;
    live.set(id, { command: label(req), started: Date.now() });
    if (!timer) {
      timer = setInterval(show, 1000);
      timer.unref();
    }
    show();
    return () => {
      live.delete(id);
      if (live.size === 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
      show();
    };
  };
}

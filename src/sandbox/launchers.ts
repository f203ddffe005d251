/**
 * The small programs a script runs under so the host learns how it ended (see script-run.ts): each runs
 * the script in the same process, catches what ends it, writes one JSON record to a file it created
 * before the script started (exclusively, no link followed), and ends the process the way the script
 * would have ended without it. Each also records which lines of the work tree's own files ran inside a
 * function (module top levels, which run on import, are left out), so a patch's lines can be checked
 * against them.
 *
 * The record: `how` (`exit`, `exception`, `does-not-parse`, `does-not-import`), `type` (the exception's
 * type as the runtime names it), `message`, `assertion` (the runtime's own assertion failure), `chain`
 * (types it was raised while handling or caused by), `line` (for a parse failure), `exit`, `lines`
 * ({file: [line, ...]}, repository-relative).
 */

import { CACHE_DIRS, DEPENDENCY_DIRS } from "../core/folder-names.ts";

/** Folders whose files are never the repository's own code: installed dependencies and caches. */
const NOT_OWN = JSON.stringify([...DEPENDENCY_DIRS, ...CACHE_DIRS]);

/** Python 3: argv is `<launcher> <record> <script> [args...]`. */
export const PYTHON_LAUNCHER = `import builtins, json, os, sys, threading, types
import traceback as _tb
_rec_path, _script = sys.argv[1], sys.argv[2]
_fd = os.open(_rec_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
del sys.argv[0:2]
_root = os.getcwd()
_script_abs = os.path.abspath(_script)
sys.path[0] = os.path.dirname(_script_abs)
_seen = {}
_mine = {}
_skip = frozenset(${NOT_OWN})
def _rel(fn):
    r = _mine.get(fn)
    if r is None:
        a = os.path.abspath(fn)
        r = ""
        if a != _script_abs and a.startswith(_root + os.sep) and a.endswith(".py"):
            rel = a[len(_root) + 1:]
            parts = rel.split(os.sep)
            if not any(p.startswith(".") or p in _skip for p in parts):
                r = "/".join(parts)
        _mine[fn] = r
    return r
def _local(frame, event, arg):
    if event == "line":
        s = _seen.get(frame.f_code.co_filename)
        if s is not None:
            s.add(frame.f_lineno)
    return _local
def _global(frame, event, arg):
    code = frame.f_code
    if code.co_name == "<module>":
        return None
    r = _rel(code.co_filename)
    if not r:
        return None
    if code.co_filename not in _seen:
        _seen[code.co_filename] = set()
    return _local
def _qual(t):
    m = getattr(t, "__module__", "") or ""
    n = getattr(t, "__qualname__", t.__name__)
    return n if m == "builtins" else m + "." + n
def _chain(e):
    out, seen, c = [], set(), (e.__cause__ or e.__context__)
    while c is not None and id(c) not in seen and len(out) < 20:
        seen.add(id(c)); out.append(_qual(type(c))); c = c.__cause__ or c.__context__
    return out
def _write(rec):
    sys.settrace(None); threading.settrace(None)
    lines = {}
    for fn, s in list(_seen.items()):
        r = _rel(fn)
        if r and s:
            lines[r] = sorted(list(s))
    rec["lines"] = lines
    data = json.dumps(rec).encode()
    try:
        os.write(_fd, data[: 4 * 1024 * 1024]); os.close(_fd)
    except OSError:
        pass
def _ended(e, how):
    return {"how": how, "type": _qual(type(e)), "message": str(e)[:2000],
            "assertion": isinstance(e, AssertionError), "chain": _chain(e),
            "line": getattr(e, "lineno", None) if how == "does-not-parse" else None, "exit": 1}
try:
    with open(_script_abs, "rb") as f:
        _src = f.read()
    _code = compile(_src, _script, "exec")
except SyntaxError as e:
    _write(_ended(e, "does-not-parse"))
    _tb.print_exception(type(e), e, None)
    sys.exit(1)
_main = types.ModuleType("__main__")
_main.__dict__.update({"__file__": _script, "__builtins__": builtins, "__cached__": None})
sys.modules["__main__"] = _main
threading.settrace(_global)
sys.settrace(_global)
try:
    exec(_code, _main.__dict__)
except SystemExit as e:
    c = e.code
    _write({"how": "exit", "exit": c if isinstance(c, int) else (0 if c is None else 1)})
    raise
except BaseException as e:
    _write(_ended(e, "does-not-import" if isinstance(e, (ImportError, SyntaxError)) else "exception"))
    _tb.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None)
    sys.stderr.flush()
    sys.exit(130 if isinstance(e, KeyboardInterrupt) else 1)
else:
    _write({"how": "exit", "exit": 0})
`;

/** Node (an ES module given to `--import`): the record's path is the launcher's own with `.json`. */
export const NODE_LAUNCHER = String.raw`import { Session } from "node:inspector";
import { openSync, writeSync, closeSync, readFileSync, constants } from "node:fs";
import { fileURLToPath } from "node:url";
import { sep } from "node:path";
const me = fileURLToPath(import.meta.url);
const fd = openSync(me.replace(/\.mjs$/, ".json"), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
const root = process.cwd() + sep;
const NOT_OWN = new Set(${NOT_OWN});
const mainPath = process.argv[1] ?? "";
const session = new Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
let ended = null;
const LOAD_CODES = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND", "ERR_PACKAGE_PATH_NOT_EXPORTED", "ERR_UNSUPPORTED_DIR_IMPORT", "ERR_UNKNOWN_FILE_EXTENSION", "ERR_REQUIRE_ESM"]);
const typeOf = (e) => (e !== null && typeof e === "object" && typeof e.name === "string" ? e.name : typeof e === "object" && e !== null ? (e.constructor?.name ?? "Object") : typeof e);
process.on("uncaughtExceptionMonitor", (err) => {
  if (ended) return;
  const chain = [];
  for (let c = err?.cause, n = 0; c !== undefined && c !== null && n < 20; c = c?.cause, n++) chain.push(typeOf(c));
  let message = "";
  try { message = String(err?.message ?? err).slice(0, 2000); } catch { message = "(unprintable)"; }
  let line = null;
  try { const m = /^(file:\S+|\/\S+):(\d+)\n/.exec(String(err?.stack ?? "")); if (m) line = Number(m[2]); } catch {}
  ended = { how: "exception", type: typeOf(err), code: typeof err?.code === "string" ? err.code : null, message,
    assertion: err?.code === "ERR_ASSERTION", chain, line, exit: 1 };
});
function linesOf(path, functions) {
  let src;
  try { src = readFileSync(path, "utf8"); } catch { return []; }
  const ranges = [];
  // A line where a function starts is its declaration (it runs where the function is defined), not its body.
  const starts = new Set();
  for (const f of functions) {
    if (f.ranges.length === 0 || (f.ranges[0].startOffset === 0 && f.functionName === "")) continue;
    starts.add(f.ranges[0].startOffset);
    for (const r of f.ranges) ranges.push(r);
  }
  const out = [];
  let at = 0;
  for (let n = 1; at <= src.length; n++) {
    const end = src.indexOf("\n", at);
    const stop = end === -1 ? src.length : end;
    let i = at;
    while (i < stop && (src[i] === " " || src[i] === "\t" || src[i] === "\r")) i++;
    if (i < stop && !starts.has(i)) {
      let best = null;
      for (const r of ranges)
        if (r.startOffset <= i && i < r.endOffset && (best === null || r.endOffset - r.startOffset < best.endOffset - best.startOffset)) best = r;
      if (best && best.count > 0) out.push(n);
    }
    if (end === -1) break;
    at = end + 1;
  }
  return out;
}
process.on("exit", (code) => {
  let cov = [];
  try { session.post("Profiler.takePreciseCoverage", (e, r) => { if (!e) cov = r.result; }); } catch {}
  const lines = {};
  let started = false;
  for (const s of cov) {
    let p = null;
    try { p = s.url.startsWith("file:") ? fileURLToPath(s.url) : s.url.startsWith("/") ? s.url : null; } catch {}
    if (p === null) continue;
    if (p === mainPath) { started = true; continue; }
    if (p === me || !p.startsWith(root)) continue;
    const rel = p.slice(root.length).split(sep);
    if (rel.some((x) => x.startsWith(".") || NOT_OWN.has(x))) continue;
    const got = linesOf(p, s.functions);
    if (got.length > 0) lines[rel.join("/")] = got;
  }
  let rec = ended ?? { how: "exit", exit: code };
  if (ended) {
    ended.exit = code;
    const load = LOAD_CODES.has(ended.code ?? "");
    if (!started) rec = { ...ended, how: ended.type === "SyntaxError" && !/export named|import statement|module/i.test(ended.message) ? "does-not-parse" : "does-not-import" };
    else if (load) rec = { ...ended, how: "does-not-import" };
  }
  rec.lines = lines;
  try { writeSync(fd, JSON.stringify(rec).slice(0, 4 * 1024 * 1024)); closeSync(fd); } catch {}
});
`;

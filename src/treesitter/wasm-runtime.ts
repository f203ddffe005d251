/**
 * How this thread starts web-tree-sitter's WebAssembly runtime, and how the text being parsed reaches it.
 *
 * The parser asks JavaScript for its input one chunk at a time: at most 5,119 UTF-16 code units, copied
 * into a buffer in WebAssembly memory. web-tree-sitter's own callback slices the text and copies it
 * one code unit at a time through a DataView: about 10 ns a character, 5–8 % of a parse. Here the text
 * is written once into a UTF-16 scratch buffer (`Buffer.write`, a bulk copy), and each chunk is one
 * `Uint8Array.set` from it.
 *
 * The callback is swapped where the runtime is instantiated (Emscripten's `instantiateWasm` hook),
 * so the package's files are used as they are. When the runtime does not import the callback under
 * the expected name, parsing goes on through the stock callback and `fastInputInstalled()` says so:
 * a test requires it for the installed version.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Parser } from "web-tree-sitter";

const require = createRequire(import.meta.url);

const RUNTIME_WASM = "web-tree-sitter/web-tree-sitter.wasm";

/** Code units per chunk: the runtime's 10 KiB input buffer, less the NUL it ends with. */
const CHUNK_UNITS = 5119;

/** The WebAssembly import web-tree-sitter calls for a chunk of input. */
const PARSE_CALLBACK = "tree_sitter_parse_callback";

/** The little of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => object;
  Memory: abstract new (...args: never[]) => WasmMemory;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type ChunkCallback = (
  buffer: number,
  index: number,
  row: number,
  column: number,
  lengthAddress: number,
) => void;

/** The text being parsed in this thread, as UTF-16LE code units, while a parse runs. */
let current: { bytes: Buffer; units: number } | null = null;
/** Grown as needed and kept between parses (no allocation per file), up to KEEP_BYTES. */
let scratch = Buffer.alloc(0);
/** A larger text (the index reads files of up to 1 MiB) gets a buffer of its own, not kept. */
const KEEP_BYTES = 4 * 1024 * 1024;
let installed = false;
let chunks = 0;

/** Did the runtime take the bulk-copy input callback? */
export function fastInputInstalled(): boolean {
  return installed;
}

/** Chunks served by the bulk-copy callback in this thread so far. */
export function fastInputChunks(): number {
  return chunks;
}

/**
 * Runs `parse` (which must call `Parser.parse` synchronously, with this very `source`) with the
 * input served from a UTF-16 copy of `source`. Calls may not nest.
 */
export function withParseInput<T>(source: string, parse: () => T): T {
  if (!installed) return parse();
  const need = source.length * 2;
  if (scratch.length < need && need <= KEEP_BYTES) {
    scratch = Buffer.allocUnsafe(Math.min(KEEP_BYTES, Math.max(need, scratch.length * 2, 64 * 1024)));
  }
  const bytes = need <= scratch.length ? scratch : Buffer.allocUnsafe(need);
  bytes.write(source, 0, "utf16le");
  current = { bytes, units: source.length };
  try {
    return parse();
  } finally {
    current = null;
  }
}

/** A chunk callback that copies from `current`, and leaves any other parse to `stock`. */
function bulkCallback(memory: WasmMemory, stock: ChunkCallback): ChunkCallback {
  let heap = new Uint8Array(memory.buffer);
  let words = new Int32Array(memory.buffer);
  return (buffer, index, row, column, lengthAddress) => {
    const input = current;
    if (input === null) {
      stock(buffer, index, row, column, lengthAddress);
      return;
    }
    // Memory that grew detached the old views.
    if (heap.buffer !== memory.buffer) {
      heap = new Uint8Array(memory.buffer);
      words = new Int32Array(memory.buffer);
    }
    const n = index >= input.units ? 0 : Math.min(input.units - index, CHUNK_UNITS);
    heap.set(input.bytes.subarray(index * 2, (index + n) * 2), buffer);
    heap[buffer + n * 2] = 0;
    heap[buffer + n * 2 + 1] = 0;
    words[lengthAddress >> 2] = n;
    chunks++;
  };
}

/**
 * Starts web-tree-sitter's runtime in this thread, with the bulk-copy input callback. The module is
 * compiled first, so that a failure rejects here; instantiating it inside the hook is synchronous, so
 * a failure there rejects `Parser.init` too (an asynchronous one would leave it pending for ever).
 */
export async function initRuntime(): Promise<void> {
  const module = await Wasm.compile(readFileSync(require.resolve(RUNTIME_WASM)));
  const options = {
    instantiateWasm(
      imports: { env: Record<string, unknown> },
      done: (instance: object, module: object) => void,
    ): Record<string, never> {
      const env = imports.env;
      const stock = env[PARSE_CALLBACK];
      if (typeof stock === "function" && env.memory instanceof Wasm.Memory) {
        env[PARSE_CALLBACK] = bulkCallback(env.memory, stock as ChunkCallback);
        installed = true;
      }
      done(new Wasm.Instance(module, imports), module);
      return {};
    },
  };
  await Parser.init(options as Parameters<typeof Parser.init>[0]);
}

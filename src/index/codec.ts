import { lastNameSegment } from "./symbol-build.ts";
import type { SymbolInfo, SymbolKind } from "./types.ts";

/**
 * Compact cache encoding of symbols: one array per symbol, empty lists and false flags stored as 0, so
 * that the warm path parses little JSON. `decodeSymbols` validates and throws on anything malformed.
 */
type Row = [
  number, // kind
  string, // name
  string, // qualName
  string | null, // className
  number, // start
  number, // end
  number, // headerEnd
  number, // flags: 1 async, 2 exported
  string | 0, // classKind
  readonly string[] | 0, // decorators
  readonly string[] | 0, // bases
  readonly (readonly [number, number])[] | 0, // attrs
];

const KINDS: readonly SymbolKind[] = ["class", "function", "method"];

export function encodeSymbols(symbols: readonly SymbolInfo[]): Row[] {
  return symbols.map((s) => [
    KINDS.indexOf(s.kind),
    s.name,
    s.qualName,
    s.className,
    s.start,
    s.end,
    s.headerEnd,
    (s.async ? 1 : 0) | (s.exported ? 2 : 0),
    s.classKind ?? 0,
    s.decorators.length > 0 ? s.decorators : 0,
    s.bases.length > 0 ? s.bases : 0,
    s.attrs.length > 0 ? s.attrs : 0,
  ]);
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

/**
 * The one empty list every symbol without decorators, bases or attributes shares (frozen: nothing may
 * add to it). Most symbols have none: a first index build decodes tens of thousands of symbols in the
 * thread that also hands files to the parse workers, and an array apiece is work for its collector.
 */
const NONE: readonly never[] = Object.freeze([]);

export function decodeSymbols(rows: unknown): SymbolInfo[] {
  if (!Array.isArray(rows)) throw new Error("symbols are not a list");
  return rows.map((r: unknown) => {
    if (!Array.isArray(r) || r.length !== 12) throw new Error("bad symbol row");
    const [k, name, qualName, className, start, end, headerEnd, flags, classKind, decorators, bases, attrs] =
      r as Row;
    const kind = KINDS[k];
    if (
      !kind ||
      typeof name !== "string" ||
      typeof qualName !== "string" ||
      (className !== null && typeof className !== "string") ||
      typeof start !== "number" ||
      typeof end !== "number" ||
      typeof headerEnd !== "number" ||
      typeof flags !== "number" ||
      (decorators !== 0 && !isStrings(decorators)) ||
      (bases !== 0 && !isStrings(bases)) ||
      (attrs !== 0 && !Array.isArray(attrs))
    ) {
      throw new Error("bad symbol row");
    }
    const b = bases === 0 ? NONE : bases;
    const sym: SymbolInfo = {
      kind,
      name,
      qualName,
      className,
      start,
      end,
      headerEnd,
      decorators: decorators === 0 ? NONE : decorators,
      bases: b,
      baseNames: b === NONE ? NONE : b.map(lastNameSegment).filter((x) => x.length > 0),
      async: (flags & 1) !== 0,
      exported: (flags & 2) !== 0,
      attrs: attrs === 0 ? NONE : attrs,
    };
    if (typeof classKind === "string") sym.classKind = classKind;
    return sym;
  });
}

/** How many classes, functions and methods a file defines. */
export type KindCounts = readonly [classes: number, functions: number, methods: number];

export function countKinds(symbols: readonly SymbolInfo[]): KindCounts {
  let classes = 0;
  let functions = 0;
  for (const s of symbols) {
    if (s.kind === "class") classes++;
    else if (s.kind === "function") functions++;
  }
  return [classes, functions, symbols.length - classes - functions];
}

/** A record made by `withLazySymbols`: where its rows are, and its symbols once read. */
interface LazyState {
  text: (() => string) | null;
  bytes: Uint8Array | undefined;
  symbols: SymbolInfo[] | null;
}

const lazyStates = new WeakMap<object, LazyState>();

/**
 * One getter and one setter for every record, so that the records share their shape (V8 gives objects
 * with different accessor functions different hidden classes, and every search reads these records).
 */
const LAZY_SYMBOLS: PropertyDescriptor = {
  get(this: object): SymbolInfo[] {
    const st = lazyStates.get(this)!;
    st.symbols ??= decodeSymbols(JSON.parse(st.text!()));
    return st.symbols;
  },
  set(this: object, v: SymbolInfo[]) {
    const st = lazyStates.get(this)!;
    st.symbols = v;
    st.text = null;
    st.bytes = undefined;
  },
  enumerable: true,
  configurable: true,
};

/**
 * `record` with a `symbols` property read from `rows` (JSON of this module's rows, or a function that
 * gives it) when first asked for, and kept from then on. A first index build takes the rows of tens of
 * thousands of symbols from its parse workers while it still hands them files, and a warm build reads
 * them from the manifest: as objects they would be made, and then copied by the collector, before anyone
 * looks at them. Searches ask for them later. The rows must be ones this code made (a parse worker's,
 * the object store's after its check, a manifest's whose checksum holds): a malformed row throws at the
 * first read.
 *
 * The property is the record's own and enumerable, so a copy (`{ ...record }`, JSON) has the symbols.
 */
export function withLazySymbols<T extends object>(
  record: T,
  rows: string | (() => string),
  /** The same rows as UTF-8, when the caller holds them so (a manifest): written again from these. */
  bytes?: Uint8Array,
): T & { symbols: SymbolInfo[] } {
  lazyStates.set(record, { text: typeof rows === "string" ? () => rows : rows, bytes, symbols: null });
  return Object.defineProperty(record, "symbols", LAZY_SYMBOLS) as T & { symbols: SymbolInfo[] };
}

/** The rows a record made by `withLazySymbols` was given (unless its symbols were replaced since). */
export function rowsOfLazy(record: object): string | Uint8Array | undefined {
  const st = lazyStates.get(record);
  if (!st?.text) return undefined;
  return st.bytes ?? st.text();
}

/**
 * What JavaScript defines at run time under a literal name is indexed: `__defineGetter__` /
 * `__defineSetter__`, `Object.defineProperty` and `Object.defineProperties` accessors, methods assigned
 * as `X.prototype.name = function` or `obj.name = function`, with the object they are made on as the
 * class (`exports.name = function` stays a function of the module). A computed name is not guessed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { extractSymbols } from "../../src/index/extract.ts";

const SOURCE = `var req = exports = module.exports = {};

req.__defineGetter__('host', function () {
  var host = this.get('Host');
  return host.split(':')[0];
});

req.__defineSetter__("path", (v) => {
  this._path = v;
});

Object.defineProperty(req, 'protocol', {
  get: function () {
    return 'http';
  },
});

Object.defineProperties(Thing.prototype, {
  size: { get() { return 1; } },
  'label': { value: function () {} },
});

exports.parse = function parse() {};

Foo.prototype.bar = function () {};

res.send = function send(body) {
  return body;
};

req.__defineGetter__(name, function () {});
Object.defineProperty(req, computed, { get() {} });
`;

for (const lang of ["javascript", "typescript"] as const) {
  test(`${lang}: run-time definitions with a literal name are symbols of the object they are made on`, async () => {
    const { symbols } = await extractSymbols(lang, SOURCE);
    const got = symbols.map((s) => [s.kind, s.qualName, s.className, s.start, s.end]);
    assert.deepEqual(got, [
      ["method", "req.host", "req", 3, 6],
      ["method", "req.path", "req", 8, 10],
      ["method", "req.protocol", "req", 12, 16],
      ["method", "Thing.size", "Thing", 19, 19],
      ["method", "Thing.label", "Thing", 20, 20],
      ["function", "parse", null, 23, 23],
      ["method", "Foo.bar", "Foo", 25, 25],
      ["method", "res.send", "res", 27, 29],
    ]);
  });
}

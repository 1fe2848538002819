/**
 * `ssh2` computes the Poly1305 MAC of its `chacha20-poly1305@openssh.com` cipher with an
 * Emscripten WebAssembly module (`lib/protocol/crypto/poly1305.js`) that it instantiates before
 * its first handshake, and QuickJS has no WebAssembly: without it no ssh2 connection starts. The
 * bundler loads this pure-JavaScript module in its place: the same interface (`_malloc`, `HEAPU8`,
 * `cwrap("poly1305_auth")`, a Promise of the module), the MAC of RFC 8439 computed with BigInt
 * (docs/runtime.md, "npm packages").
 * @internal
 */

/** ssh2's Poly1305 WebAssembly loader. */
export const SSH2_POLY1305 = /[\\/]node_modules[\\/]ssh2[\\/]lib[\\/]protocol[\\/]crypto[\\/]poly1305\.js$/;

/**
 * What {@link SSH2_POLY1305} is loaded as. `poly1305_auth(out, a, aLength, b, bLength, key)` writes
 * at `HEAPU8[out]` the 16-byte MAC, under the 32-byte `key`, of `a` then `b`.
 */
export const POLY1305_JS = `"use strict";
var P = (1n << 130n) - 5n;
var CLAMP = 0x0ffffffc0ffffffc0ffffffc0fffffffn;
function le(buf, start, end) {
  var n = 0n;
  for (var i = end - 1; i >= start; i--) n = (n << 8n) | BigInt(buf[i]);
  return n;
}
module.exports = function () {
  var heap = new Uint8Array(16);
  function auth(out, a, aLength, b, bLength, key) {
    var m = new Uint8Array(aLength + bLength);
    m.set(a.subarray(0, aLength), 0);
    m.set(b.subarray(0, bLength), aLength);
    var r = le(key, 0, 16) & CLAMP;
    var acc = 0n;
    for (var i = 0; i < m.length; i += 16) {
      var end = Math.min(i + 16, m.length);
      acc = ((acc + le(m, i, end) + (1n << BigInt(8 * (end - i)))) * r) % P;
    }
    acc = (acc + le(key, 16, 32)) & ((1n << 128n) - 1n);
    for (var k = 0; k < 16; k++) {
      heap[out + k] = Number(acc & 255n);
      acc >>= 8n;
    }
  }
  return Promise.resolve({
    HEAPU8: heap,
    _malloc: function () { return 0; },
    cwrap: function () { return auth; },
  });
};
`;
